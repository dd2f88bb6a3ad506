#include "server/api_error.h"

namespace plumb::server {

ApiError invalid_request(std::string message, std::string param, std::string code) {
  return ApiError(400, "invalid_request_error", std::move(message), std::move(param), std::move(code));
}

nlohmann::ordered_json error_body(const ApiError& e) {
  nlohmann::ordered_json err = {{"message", e.what()}, {"type", e.type}, {"param", nullptr}, {"code", nullptr}};
  if (!e.param.empty()) err["param"] = e.param;
  if (!e.code.empty()) err["code"] = e.code;
  return {{"error", err}};
}

}  // namespace plumb::server
