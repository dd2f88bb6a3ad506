// The streaming client against servers that go wrong: every way a request can fail is a failed reply with a reason,
// never a reply that looks complete.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "bench/openai_client.h"
#include "test_support.h"

namespace plumb::bench {
namespace {

class MisbehavingServer {
 public:
  MisbehavingServer() {
    server_.Post("/v1/busy", [](const httplib::Request&, httplib::Response& res) {
      res.status = 503;
      res.set_content(R"({"error":{"message":"queue full"}})", "application/json");
    });
    server_.Post("/v1/cut", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        const std::string chunk = "data: {\"choices\":[{\"index\":0,\"text\":\"a\"}]}\n\n";
        sink.write(chunk.data(), chunk.size());
        sink.done();  // no [DONE]
        return true;
      });
    });
    server_.Post("/v1/error-event", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        const std::string body = "data: {\"error\":{\"message\":\"engine stopped\"}}\n\ndata: [DONE]\n\n";
        sink.write(body.data(), body.size());
        sink.done();
        return true;
      });
    });
    server_.Post("/v1/garbage", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        const std::string body = "data: {not json\n\ndata: [DONE]\n\n";
        sink.write(body.data(), body.size());
        sink.done();
        return true;
      });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~MisbehavingServer() {
    server_.stop();
    thread_.join();
  }
  ServerUrl url() const { return {"127.0.0.1", port_, ""}; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = -1;
};

TEST(StreamRequest, FailuresCarryTheirReason) {
  MisbehavingServer server;
  const ClientOptions options{.timeout_s = 10, .api_key = ""};

  auto r = stream_request(server.url(), "/v1/busy", nlohmann::json::object(), options);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.http_status, 503);
  EXPECT_EQ(r.error, R"(HTTP 503: {"error":{"message":"queue full"}})");

  r = stream_request(server.url(), "/v1/cut", nlohmann::json::object(), options);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "the stream ended before data: [DONE]");
  EXPECT_EQ(r.text, "a");  // what came is still recorded

  r = stream_request(server.url(), "/v1/error-event", nlohmann::json::object(), options);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, R"(error event: {"message":"engine stopped"})");

  r = stream_request(server.url(), "/v1/garbage", nlohmann::json::object(), options);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "a stream chunk is not a JSON object: {not json");

  r = stream_request({"127.0.0.1", 1, ""}, "/v1/x", nlohmann::json::object(), options);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "POST http://127.0.0.1:1/v1/x: Connection");
}

}  // namespace
}  // namespace plumb::bench
