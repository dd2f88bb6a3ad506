// The prompt ids of a validated request: chat messages through the model's chat encoding, completion prompts
// as text or ids. Shared by the routes and by `plumb run --request`, so a request run from the terminal gets
// the same prompt the server builds for it.
#pragma once

#include <cstdint>
#include <vector>

#include "server/model_text.h"
#include "server/openai_request.h"

namespace plumb::server {

ChatPromptOptions chat_prompt_options(const ChatRequest& req);
// Throws a 400 ApiError (param "messages") when the chat encoding refuses the conversation.
std::vector<int32_t> chat_prompt_ids(const ModelText& text, const ChatRequest& req);
std::vector<int32_t> completion_prompt_ids(const ModelText& text, const CompletionRequest& req);

}  // namespace plumb::server
