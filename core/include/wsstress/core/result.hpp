// SPDX-License-Identifier: MIT OR Apache-2.0
// Result<T>: what every function of the tool that can fail returns (
// point 8): a value, or an Error whose message is the one line the user will
// read ("--seeds: '5..3' is not a range FROM..TO"). Result<void> is a success
// with nothing to return. It stands in for C++23's std::expected, which g++ 12
// does not offer in C++20. Not covered: the pool, which keeps rayon's own
// error types (ThreadPoolBuildError, the platform's spawn error_code) as its
// API; CLI11's validators, whose contract is a string (empty: accepted); and
// yes/no predicates whose caller words the refusal (parse_u64, is_dir).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace wsstress {

struct Error {
  std::string message;
};

// The failing side, spelled at the return: `return fail("--json: ...");`.
inline Error fail(std::string message) { return Error{std::move(message)}; }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit, as std::expected
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT
  explicit operator bool() const noexcept { return v_.index() == 0; }
  bool ok() const noexcept { return v_.index() == 0; }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  const std::string& error() const {
    assert(!ok());
    return std::get<1>(v_).message;
  }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error e) : error_(std::move(e.message)), failed_(true) {}  // NOLINT
  explicit operator bool() const noexcept { return !failed_; }
  bool ok() const noexcept { return !failed_; }
  const std::string& error() const {
    assert(failed_);
    return error_;
  }

 private:
  std::string error_;
  bool failed_ = false;
};

}  // namespace wsstress
