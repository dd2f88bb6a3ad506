// SSE framing and server URLs: the parts of the client that must be right byte for byte.
#include <gtest/gtest.h>

#include "base/error.h"
#include "bench/server_url.h"
#include "bench/sse.h"
#include "test_support.h"

namespace plumb::bench {
namespace {

using Events = std::vector<std::string>;

TEST(SseParser, EventsEndAtBlankLines) {
  SseParser p;
  EXPECT_EQ(p.feed("data: {\"a\":1}\n\ndata: [DONE]\n\n"), (Events{"{\"a\":1}", "[DONE]"}));
  EXPECT_FALSE(p.has_partial_event());
}

TEST(SseParser, BytesSplitAnywhereGiveTheSameEvents) {
  const std::string stream = "data: one\r\n\r\n: a comment\n\ndata:two\ndata:  three\n\nevent: x\nid: 7\ndata: four\n\n";
  const Events expected = {"one", "two\n three", "four"};
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    SseParser p;
    Events got = p.feed(stream.substr(0, cut));
    for (auto& e : p.feed(stream.substr(cut))) got.push_back(e);
    EXPECT_EQ(got, expected) << "cut at " << cut;
  }
  SseParser bytewise;
  Events got;
  for (char c : stream)
    for (auto& e : bytewise.feed(std::string(1, c))) got.push_back(e);
  EXPECT_EQ(got, expected);
}

TEST(SseParser, AnUnfinishedEventIsPartialNotDispatched) {
  SseParser p;
  EXPECT_TRUE(p.feed("data: half").empty());
  EXPECT_TRUE(p.has_partial_event());
  EXPECT_TRUE(p.feed("\n").empty());
  EXPECT_TRUE(p.has_partial_event());
  EXPECT_EQ(p.feed("\n"), Events{"half"});
  EXPECT_FALSE(p.has_partial_event());
}

TEST(SseParser, EventsWithoutDataAreNotDispatched) {
  SseParser p;
  EXPECT_TRUE(p.feed(": keep-alive\n\nevent: ping\n\n").empty());
  EXPECT_EQ(p.feed("data:\n\n"), Events{""});  // an empty data line is an event with empty data
}

TEST(ServerUrl, HostPortPrefixAndV1) {
  auto u = parse_server_url("http://127.0.0.1:8080");
  EXPECT_EQ(u.host, "127.0.0.1");
  EXPECT_EQ(u.port, 8080);
  EXPECT_EQ(u.api("/chat/completions"), "/v1/chat/completions");
  EXPECT_EQ(u.root("/health"), "/health");

  u = parse_server_url("http://example.org/v1/");
  EXPECT_EQ(u.host, "example.org");
  EXPECT_EQ(u.port, 80);
  EXPECT_EQ(u.api("/models"), "/v1/models");

  u = parse_server_url("http://h:9/proxy/v1");
  EXPECT_EQ(u.prefix, "/proxy");
  EXPECT_EQ(u.api("/models"), "/proxy/v1/models");
  EXPECT_EQ(u.text(), "http://h:9/proxy");

  u = parse_server_url("http://[::1]:8000");
  EXPECT_EQ(u.host, "::1");
  EXPECT_EQ(u.port, 8000);
}

TEST(ServerUrl, BadUrlsSayWhatIsWrong) {
  auto message = [](const char* url) {
    try {
      parse_server_url(url);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("https://h:1").find("https is not supported"), std::string::npos);
  EXPECT_NE(message("localhost:8080").find("expected http://host:port"), std::string::npos);
  EXPECT_NE(message("http://h:0").find("port '0'"), std::string::npos);
  EXPECT_NE(message("http://h:80x").find("port '80x'"), std::string::npos);
  EXPECT_NE(message("http://:80").find("no host"), std::string::npos);
}

}  // namespace
}  // namespace plumb::bench
