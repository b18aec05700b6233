#!/bin/sh
# SPDX-License-Identifier: MIT OR Apache-2.0
# Zero cost in production: the production probe object and the production
# library must not reference any tracing, invariant-check or mutant symbol,
# while the traced control object must (proving the search can see them). The
# platform cell of the pool's plain shared memory (PlainCell) must compile away.
# Usage: check_zero_cost.sh PROD_PROBE.o TRACED_PROBE.o LIBWSSTRESS_POOL.a
set -u
prod=$1; traced=$2; lib=$3
pattern='on_event|invariant_failed|Tracing|Traced|Mutant[^s]|mutant|PlainCell'
fail=0
prod_hits=$(nm -C "$prod" | grep -E "$pattern")
if [ -n "$prod_hits" ]; then echo "production probe references instrumentation:"; echo "$prod_hits"; fail=1; fi
lib_hits=$(nm -C "$lib" | grep -E "$pattern")
if [ -n "$lib_hits" ]; then echo "production library references instrumentation:"; echo "$lib_hits"; fail=1; fi
traced_hits=$(nm -C "$traced" | grep -cE 'on_event_hook|invariant_failed_hook')
if [ "$traced_hits" -eq 0 ]; then echo "control: the traced probe shows no hook; the check cannot see instrumentation"; fail=1; fi
# The production join fast path calls no out-of-line function of the pool
# except the cold paths (in_worker_cold for a caller outside any pool).
calls=$(objdump -d --no-show-raw-insn -C "$prod" | awk '/<wsstress_probe_join>:/{f=1;next} /^$/{f=0} f' | grep -c 'call')
# The SeqCst fences are rustc's instruction for rayon-core's (StdPlatform::fence):
# a locked no-op below the live stack, never on (%rsp) itself nor an mfence.
# Under ThreadSanitizer the fence stays the standard call TSan intercepts.
if [ "$(uname -m)" = x86_64 ] && nm "$prod" | grep -q '__tsan_'; then
  echo "production probe: built under ThreadSanitizer, its fences are TSan's calls (not checked)"
elif [ "$(uname -m)" = x86_64 ]; then
  asm=$(objdump -d --no-show-raw-insn "$prod")
  below=$(echo "$asm" | grep -cE 'lock orl \$0x0,-0x40\(%rsp\)')
  other=$(echo "$asm" | grep -cE 'mfence|lock orq \$0x0,\(%rsp\)')
  echo "production probe: $below SeqCst fences as lock orl \$0,-64(%rsp), $other as mfence or lock orq \$0,(%rsp)"
  if [ "$below" -eq 0 ] || [ "$other" -ne 0 ]; then echo "the SeqCst fence is not rayon-core's instruction"; fail=1; fi
fi
echo "production probe: 0 instrumentation symbols; library: 0; traced control: $traced_hits hook references; join probe: $calls calls"
[ "$fail" -eq 0 ] && echo "zero-cost check: ok"
exit $fail
