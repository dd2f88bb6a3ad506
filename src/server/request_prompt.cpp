#include "server/request_prompt.h"

#include "base/error.h"
#include "server/api_error.h"

namespace plumb::server {

ChatPromptOptions chat_prompt_options(const ChatRequest& req) { return {req.thinking, req.reasoning_effort}; }

std::vector<int32_t> chat_prompt_ids(const ModelText& text, const ChatRequest& req) {
  std::string prompt;
  try {
    prompt = text.render_chat(req.messages, req.tools, chat_prompt_options(req));
  } catch (const plumb::Error& e) {
    throw invalid_request(e.what(), "messages");
  }
  return text.encode(prompt);
}

std::vector<int32_t> completion_prompt_ids(const ModelText& text, const CompletionRequest& req) {
  return req.prompt_text ? text.encode(*req.prompt_text) : req.prompt_ids;
}

}  // namespace plumb::server
