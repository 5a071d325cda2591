// An httplib::Server that reads at most a set number of bytes for each request.
//
// Debian's cpp-httplib 0.11 reads a request line, a header line and a chunk-size line into
// memory whole, however long: a client sending hundreds of megabytes without a newline made the
// server hold all of it (a 308 MB request line grew `nndna serve` to 572 MB). Its payload limit
// covers only a body that states its Content-Length. This server serves each connection as the
// library does (keep-alive, timeouts), but through a stream that refuses to read more than
// `requestByteLimit` bytes for one request: past it the read fails, and the library answers
// 400/413/414 or drops the connection, as for any broken request.
#pragma once

#include <httplib.h>

#include <cstddef>

namespace nndna::server {

class BoundedHttpServer : public httplib::Server {
 public:
  // Bytes one request may take on the wire: its request line, headers and body (chunk framing
  // included). Set before listening.
  void setRequestByteLimit(std::size_t bytes) { requestByteLimit_ = bytes; }

  // Called by a handler: the connection closes once this request's response is written (a
  // handler that stopped reading a body leaves the rest of it unread on the connection).
  static void closeAfterThisResponse();

 private:
  bool process_and_close_socket(socket_t sock) override;

  std::size_t requestByteLimit_ = std::size_t{8} << 20;
};

}  // namespace nndna::server
