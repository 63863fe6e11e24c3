// agx::Error and agx::Result<T>: how every unit reports bad input.
//
// Input from outside (machine code, control streams, ioctl arguments, files)
// is never trusted; a failure travels up as an Error naming what was wrong and
// where, and each layer may add context ("row 3: ...").
#pragma once

#include <fmt/format.h>

#include <cassert>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace agx {

enum class ErrorKind {
  invalid_argument,  // a request that can never be satisfied (bad size, flag, ...)
  decode,            // malformed binary input (machine code, packets, descriptors)
  parse,             // malformed text input (assembly, CSV, JSON, plans)
  not_found,         // an unknown name or id
  unsupported,       // valid, but not something this hardware / project does
  fault,             // a GPU memory fault
  io,                // a file or OS call failed
  limit,             // a step, size or count limit was reached
};

const char* to_string(ErrorKind kind);

class Error {
 public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  template <typename... Args>
  static Error make(ErrorKind kind, fmt::format_string<Args...> f, Args&&... args) {
    return Error(kind, fmt::format(f, std::forward<Args>(args)...));
  }
#define AGX_ERROR_FACTORY(name)                                                 \
  template <typename... Args>                                                   \
  static Error name(fmt::format_string<Args...> f, Args&&... args) {            \
    return Error(ErrorKind::name, fmt::format(f, std::forward<Args>(args)...)); \
  }
  AGX_ERROR_FACTORY(invalid_argument)
  AGX_ERROR_FACTORY(decode)
  AGX_ERROR_FACTORY(parse)
  AGX_ERROR_FACTORY(not_found)
  AGX_ERROR_FACTORY(unsupported)
  AGX_ERROR_FACTORY(fault)
  AGX_ERROR_FACTORY(io)
  AGX_ERROR_FACTORY(limit)
#undef AGX_ERROR_FACTORY

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with where it happened: "row 3: " + message.
  Error context(std::string_view where) && {
    message_ = fmt::format("{}: {}", where, message_);
    return std::move(*this);
  }
  Error context(std::string_view where) const& { return Error(*this).context(where); }

 private:
  ErrorKind kind_;
  std::string message_;
};

// A value or an Error. Result<void> carries only success or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { assert(!ok()); return std::get<1>(v_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : e_(std::move(error)) {}
  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { assert(!ok()); return *e_; }
  Error&& error() && { assert(!ok()); return std::move(*e_); }

 private:
  std::optional<Error> e_;
};

using Status = Result<void>;

}  // namespace agx

// AGX_TRY(var, expr): evaluate a Result, return its Error from the enclosing
// function on failure, else bind the value to `var`.
#define AGX_CONCAT_INNER(a, b) a##b
#define AGX_CONCAT(a, b) AGX_CONCAT_INNER(a, b)
#define AGX_TRY(var, expr) AGX_TRY_IMPL(AGX_CONCAT(agx_try_, __LINE__), var, expr)
#define AGX_TRY_IMPL(tmp, var, expr)          \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return std::move(tmp).error(); \
  var = std::move(tmp).value()
// AGX_CHECK(expr): propagate the Error of a Status.
#define AGX_CHECK(expr)                                          \
  do {                                                           \
    auto agx_check_status = (expr);                              \
    if (!agx_check_status.ok()) return std::move(agx_check_status).error(); \
  } while (0)
