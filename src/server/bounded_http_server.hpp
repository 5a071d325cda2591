// An httplib::Server that bounds what it reads for each request: the bytes of its head, of its
// body, and the time it takes to arrive.
//
// Debian's cpp-httplib 0.11 reads a request line, a header line or a chunk-size line into memory
// whole, however long, and keeps any number of headers (each short one costs ~20 times its bytes
// in the request's map): a 308 MB request line grew `nndna serve` to 572 MB, 2 MB of `a:b` header
// lines by about 40 MB. Its payload limit covers only a body that states its Content-Length, and
// nothing bounds how long a request may take to trickle in (each read only has the I/O timeout).
// This server serves each connection as the library does (keep-alive, timeouts), but through a
// stream that stops reading a request past its limits: the library then answers 400/413/414 or
// drops the connection, as for any broken request.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>

namespace nndna::server {

struct RequestLimits {
  std::size_t headBytes = std::size_t{64} << 10;  // the request line and headers, up to the blank line
  std::size_t bodyBytes = std::size_t{8} << 20;   // the body on the wire, chunk framing included
  std::chrono::seconds readTime{120};             // from the request's first byte to its last
};

class BoundedHttpServer : public httplib::Server {
 public:
  void setRequestLimits(const RequestLimits& limits) { limits_ = limits; }  // before listening

  // Called by a handler: the connection closes once this request's response is written (a
  // handler that stopped reading a body leaves the rest of it unread on the connection).
  static void closeAfterThisResponse();

  // Why this thread's current request stopped being read, if it did: a handler whose body read
  // failed answers 413 or 408 rather than "could not be read".
  enum class CutOff { no, tooLarge, tooSlow };
  static CutOff requestCutOff();

 private:
  bool process_and_close_socket(socket_t sock) override;

  RequestLimits limits_;
};

}  // namespace nndna::server
