#include "util/result.h"

namespace agx {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_argument: return "invalid argument";
    case ErrorKind::decode: return "decode error";
    case ErrorKind::parse: return "parse error";
    case ErrorKind::not_found: return "not found";
    case ErrorKind::unsupported: return "unsupported";
    case ErrorKind::fault: return "GPU fault";
    case ErrorKind::io: return "I/O error";
    case ErrorKind::limit: return "limit reached";
  }
  return "error";
}

}  // namespace agx
