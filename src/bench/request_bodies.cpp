#include "bench/request_bodies.h"

namespace plumb::bench {
namespace {

nlohmann::json generation_fields(const std::string& model, const GenerationSettings& s) {
  nlohmann::json body = {{"max_tokens", s.max_tokens},
                         {"temperature", s.temperature},
                         {"seed", s.seed},
                         {"ignore_eos", true}};
  if (!model.empty()) body["model"] = model;
  if (s.draft) body["draft"] = *s.draft;
  return body;
}

}  // namespace

nlohmann::json chat_body(const std::string& model, const std::string& user_text, const GenerationSettings& s) {
  auto body = generation_fields(model, s);
  body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", user_text}}});
  return body;
}

nlohmann::json completion_body(const std::string& model, std::span<const int32_t> prompt_ids,
                               const GenerationSettings& s) {
  auto body = generation_fields(model, s);
  body["prompt"] = std::vector<int32_t>(prompt_ids.begin(), prompt_ids.end());
  return body;
}

}  // namespace plumb::bench
