// Being ported (this session): see pool/tests/rayon/README.md.
#include "rayon_support.hpp"
