// The cache keys' SHA-256: the digests of FIPS 180-2's examples (appendix B), lower-case hex. The
// cache's entries and the server's ETags are named by these digests, so a change of library
// (OpenSSL's libcrypto, then Nettle) must give the same ones.
#include <gtest/gtest.h>

#include <string>

#include "specrun/sha256.hpp"

namespace {

using nndna::specrun::sha256Hex;

TEST(Sha256, FipsExamples) {
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1'000'000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, EmptyInput) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, BytesAbove127) {
  // 0x80 and 0xff are negative as char: the digest is of the bytes (coreutils' sha256sum agrees).
  EXPECT_EQ(sha256Hex(std::string("\x80\xff", 2)), "d87d01642f47a0d1901b1dfd2331c9def1bcfc69d8835c6cd911fe4165b804e4");
}

}  // namespace
