// The HTTP API end to end in process, on the toy model: reply shapes, token_sha256 equal to the request's solo
// run, streaming equal to non-streaming, auth, limits, queue-full 503, clients that vanish (their slot comes
// back), and shutdown with requests in flight.
#include <gtest/gtest.h>

// Designated initializers leave the other fields at their defaults on purpose (GCC 12 warns regardless).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <future>

#include "server_harness.h"

namespace plumb::test {
namespace {

std::vector<int32_t> ascii_ids(const std::string& s) {
  std::vector<int32_t> ids;
  for (unsigned char c : s) ids.push_back(c);
  return ids;
}

json chat_body(json extra = json::object()) {
  json body = {{"model", "toy"}, {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  for (auto& [k, v] : extra.items()) body[k] = v;
  return body;
}

engine::SamplingParams sampling(double temperature, std::optional<uint64_t> seed) {
  engine::SamplingParams p;
  p.temperature = temperature;
  p.seed = seed;
  return p;
}

TEST(HttpApi, ModelsHealthReadiness) {
  TestServer s;
  auto r = s.client().Get("/v1/models");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const json models = json::parse(r->body);
  EXPECT_EQ(models["object"], "list");
  EXPECT_EQ(models["data"][0]["id"], "toy");
  EXPECT_EQ(models["data"][0]["object"], "model");
  EXPECT_EQ(s.client().Get("/v1/models/toy")->status, 200);
  EXPECT_EQ(s.client().Get("/v1/models/other")->status, 404);
  EXPECT_EQ(s.client().Get("/health")->status, 200);
  EXPECT_EQ(s.client().Get("/health/ready")->status, 200);
}

TEST(HttpApi, ReadinessIs503UntilTheModelIsServed) {
  server::ApiServer api(server::HttpOptions{.host = "127.0.0.1", .port = 0}, "later");
  const int port = api.start();
  httplib::Client c("127.0.0.1", port);
  EXPECT_EQ(c.Get("/health")->status, 200);
  auto ready = c.Get("/health/ready");
  EXPECT_EQ(ready->status, 503);
  EXPECT_EQ(ready->get_header_value("Retry-After"), "5");
  EXPECT_EQ(json::parse(ready->body)["error"]["code"], "model_loading");
  EXPECT_EQ(c.Post("/v1/completions", R"({"prompt":"x"})", "application/json")->status, 503);
  api.shutdown(std::chrono::milliseconds(0));
}

TEST(HttpApi, ChatReplyShapeAndShaEqualToSoloRun) {
  TestServer s;
  auto r = s.post("/v1/chat/completions", chat_body({{"max_tokens", 20}, {"seed", 7}, {"temperature", 0.8}}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json j = json::parse(r->body);
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["model"], "toy");
  EXPECT_EQ(j["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(j["choices"][0]["message"]["role"], "assistant");
  const std::string reason = j["choices"][0]["finish_reason"];
  EXPECT_TRUE(reason == "stop" || reason == "length");
  const auto prompt = ascii_ids("<user>hi\n<assistant>");
  EXPECT_EQ(j["usage"]["prompt_tokens"], prompt.size());
  EXPECT_EQ(j["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
  EXPECT_EQ(j["plumb"]["token_sha256"], solo_sha(prompt, sampling(0.8, 7), 20));
  EXPECT_EQ(j["usage"]["total_tokens"], j["usage"]["prompt_tokens"].get<int>() + j["usage"]["completion_tokens"].get<int>());
  EXPECT_TRUE(j["plumb"]["drafts"].contains("proposed"));
}

TEST(HttpApi, ChatLogprobsComeFromTheModelsLogits) {
  TestServer s;
  auto r = s.post("/v1/chat/completions",
                  chat_body({{"max_tokens", 6}, {"temperature", 0}, {"ignore_eos", true}, {"logprobs", true},
                             {"top_logprobs", 3}}));
  ASSERT_EQ(r->status, 200) << r->body;
  const json j = json::parse(r->body);
  const auto& content = j["choices"][0]["logprobs"]["content"];
  ASSERT_EQ(content.size(), 6u);
  for (const auto& entry : content) {
    ASSERT_EQ(entry["top_logprobs"].size(), 3u);
    // Greedy: the chosen token is the most likely one, listed first among the alternatives.
    EXPECT_EQ(entry["token"], entry["top_logprobs"][0]["token"]);
    EXPECT_EQ(entry["logprob"], entry["top_logprobs"][0]["logprob"]);
    EXPECT_LE(entry["logprob"].get<double>(), 0.0);
    EXPECT_EQ(entry["bytes"].size(), 1u);  // one ASCII byte per toy token
  }
}

TEST(HttpApi, CompletionWithTokenIdsAndLogprobs) {
  TestServer s;
  const std::vector<int32_t> prompt = {10, 20, 30, 40, 50};
  auto r = s.post("/v1/completions", {{"prompt", prompt}, {"max_tokens", 12}, {"temperature", 0}, {"logprobs", 2},
                                      {"ignore_eos", true}});
  ASSERT_EQ(r->status, 200) << r->body;
  const json j = json::parse(r->body);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["completion_tokens"], 12);
  EXPECT_EQ(j["choices"][0]["logprobs"]["tokens"].size(), 12u);
  EXPECT_EQ(j["choices"][0]["logprobs"]["top_logprobs"][0].size(), 2u);
  // Greedy: the sampled token is the most likely one, so its logprob equals the top entry's.
  const auto& top0 = j["choices"][0]["logprobs"]["top_logprobs"][0];
  double best = -1e9;
  for (auto& [tok, lp] : top0.items()) best = std::max(best, lp.get<double>());
  EXPECT_EQ(j["choices"][0]["logprobs"]["token_logprobs"][0].get<double>(), best);
  engine::GenerationRequest solo;
  ToyModel model(128, 1, 256);
  auto cfg = toy_engine_config(1, 4);
  engine::Engine eng(model, cfg, AsciiText().text_streams());
  solo.prompt = prompt;
  solo.sampling = sampling(0, std::nullopt);
  solo.stop.max_tokens = 12;
  solo.stop.ignore_eos = true;
  auto h = eng.submit(solo);
  eng.run_until_idle();
  const auto all = h->wait_all();
  EXPECT_EQ(j["plumb"]["token_sha256"], all.stats.token_sha256);
  EXPECT_EQ(j["choices"][0]["text"], all.text);
}

TEST(HttpApi, StreamingJoinsToTheNonStreamingReply) {
  TestServer s;
  const json base = chat_body({{"max_tokens", 30}, {"seed", 3}});
  const json whole = json::parse(s.post("/v1/chat/completions", base)->body);
  json streaming = base;
  streaming["stream"] = true;
  streaming["stream_options"] = {{"include_usage", true}};
  auto r = s.post("/v1/chat/completions", streaming);
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/event-stream");
  const auto events = sse_events(r->body);
  ASSERT_GE(events.size(), 4u);
  EXPECT_EQ(events.back(), "[DONE]");
  std::string content;
  json finish, usage;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    const json chunk = json::parse(events[i]);
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    if (chunk["choices"].empty()) {
      usage = chunk["usage"];
      EXPECT_EQ(i + 2, events.size()) << "usage must be the last chunk";
      continue;
    }
    const auto& choice = chunk["choices"][0];
    if (i == 0) {
      EXPECT_EQ(choice["delta"]["role"], "assistant");
    }
    if (choice["delta"].contains("content")) content += choice["delta"]["content"].get<std::string>();
    if (!choice["finish_reason"].is_null()) {
      finish = choice["finish_reason"];
      EXPECT_EQ(chunk["plumb"]["token_sha256"], whole["plumb"]["token_sha256"]);
    }
  }
  EXPECT_EQ(content, whole["choices"][0]["message"]["content"]);
  EXPECT_EQ(finish, whole["choices"][0]["finish_reason"]);
  EXPECT_EQ(usage, whole["usage"]);
}

TEST(HttpApi, AuthOnEveryRouteButHealth) {
  TestServer s({.api_key = "sekret"});
  httplib::Client anon("127.0.0.1", s.port());
  for (const char* path : {"/v1/models", "/metrics", "/v1/nowhere"}) {
    auto r = anon.Get(path);
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_EQ(json::parse(r->body)["error"]["code"], "invalid_api_key");
  }
  auto wrong = anon.Post("/v1/chat/completions", {{"Authorization", "Bearer sekreT"}}, chat_body().dump(),
                         "application/json");
  EXPECT_EQ(wrong->status, 401);
  EXPECT_EQ(anon.Get("/health")->status, 200);
  EXPECT_EQ(anon.Get("/health/ready")->status, 200);
  EXPECT_EQ(s.client().Get("/v1/models")->status, 200);
}

TEST(HttpApi, QueueFullAnswers503WithRetryAfter) {
  TestServer s({.parallel = 1, .max_waiting = 1, .pace = std::chrono::microseconds(2000)});
  const json body = {{"prompt", "abc"}, {"max_tokens", 150}, {"ignore_eos", true}};
  auto running = std::async(std::launch::async, [&] { return s.post("/v1/completions", body); });
  while (s.engine().counters().running == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The slot is taken: of two more, one waits in the queue (size 1) and the other is refused.
  auto a = std::async(std::launch::async, [&] { return s.post("/v1/completions", body); });
  auto b = std::async(std::launch::async, [&] { return s.post("/v1/completions", body); });
  EXPECT_EQ(running.get()->status, 200);
  auto ra = a.get(), rb = b.get();
  auto& refused = ra->status == 503 ? ra : rb;
  auto& served = ra->status == 503 ? rb : ra;
  EXPECT_EQ(served->status, 200);
  EXPECT_EQ(refused->status, 503);
  EXPECT_EQ(refused->get_header_value("Retry-After"), "1");
  EXPECT_EQ(json::parse(refused->body)["error"]["code"], "queue_full");
  EXPECT_TRUE(s.wait_engine_idle());
}

TEST(HttpApi, StreamingClientThatVanishesFreesItsSlot) {
  TestServer s({.parallel = 1, .pace = std::chrono::microseconds(3000)});
  {
    RawClient c(s.port());
    c.send(http_post("/v1/completions",
                     R"({"prompt":"abc","max_tokens":200,"ignore_eos":true,"stream":true})"));
    const std::string got = c.read_until("data: ");
    EXPECT_NE(got.find("200 OK"), std::string::npos);
  }
  EXPECT_TRUE(s.wait_engine_idle(std::chrono::seconds(2)));
  const auto c = s.engine().counters();
  EXPECT_EQ(c.requests_finished[int(engine::FinishReason::finish_cancelled)], 1);
  // The slot is free: a new request is served (parallel 1).
  auto r = s.post("/v1/completions", {{"prompt", "xyz"}, {"max_tokens", 5}});
  EXPECT_EQ(r->status, 200);
}

TEST(HttpApi, NonStreamingClientThatVanishesIsCancelled) {
  TestServer s({.parallel = 1, .pace = std::chrono::microseconds(3000)});
  {
    RawClient c(s.port());
    c.send(http_post("/v1/completions", R"({"prompt":"abc","max_tokens":200,"ignore_eos":true})"));
    while (s.api().context().requests_in_flight() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(s.wait_engine_idle(std::chrono::seconds(2)));
  EXPECT_EQ(s.engine().counters().requests_finished[int(engine::FinishReason::finish_cancelled)], 1);
}

TEST(HttpApi, MetricsReturnToIdle) {
  TestServer s;
  for (int i = 0; i < 3; ++i) s.post("/v1/completions", {{"prompt", "abc"}, {"max_tokens", 4}, {"ignore_eos", true}});
  ASSERT_TRUE(s.wait_engine_idle());
  const std::string text = s.client().Get("/metrics")->body;
  EXPECT_NE(text.find("vllm:num_requests_running{model_name=\"toy\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("vllm:num_requests_waiting{model_name=\"toy\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("vllm:generation_tokens_total{model_name=\"toy\"} 12\n"), std::string::npos);
  EXPECT_NE(text.find("vllm:request_success_total{finished_reason=\"length\",model_name=\"toy\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("vllm:e2e_request_latency_seconds_count{model_name=\"toy\"} 3\n"), std::string::npos);
}

TEST(HttpApi, ShutdownLetsInFlightRequestsFinishWithinGrace) {
  TestServer s({.parallel = 2, .pace = std::chrono::microseconds(1000)});
  auto reply = std::async(std::launch::async, [&] {
    return s.post("/v1/completions", {{"prompt", "abc"}, {"max_tokens", 50}, {"ignore_eos", true}});
  });
  while (s.api().context().requests_in_flight() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.api().shutdown(std::chrono::seconds(10));
  auto r = reply.get();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["usage"]["completion_tokens"], 50);
}

TEST(HttpApi, ShutdownPastGraceCancelsStreams) {
  TestServer s({.parallel = 2, .pace = std::chrono::microseconds(5000)});
  auto reply = std::async(std::launch::async, [&] {
    return s.post("/v1/completions", {{"prompt", "abc"}, {"max_tokens", 250}, {"ignore_eos", true}, {"stream", true}});
  });
  while (s.api().context().requests_in_flight() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.api().shutdown(std::chrono::milliseconds(20));
  auto r = reply.get();
  ASSERT_TRUE(r);
  const auto events = sse_events(r->body);
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.back(), "[DONE]");
  EXPECT_EQ(json::parse(events[events.size() - 2])["error"]["code"], "shutting_down");
}

}  // namespace
}  // namespace plumb::test
