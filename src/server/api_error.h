// Errors the HTTP API answers with, in OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
// Handlers throw ApiError; the HTTP layer catches it and writes the status, the body and Retry-After when set.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace plumb::server {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string type, std::string message, std::string param = {}, std::string code = {})
      : std::runtime_error(message), status(status), type(std::move(type)), param(std::move(param)),
        code(std::move(code)) {}

  int status;
  std::string type;   // invalid_request_error, server_error, ...
  std::string param;  // the request field at fault, empty when none
  std::string code;   // machine-readable reason (context_length_exceeded, model_not_found, ...), empty when none
  int retry_after_s = 0;  // > 0: sent as Retry-After
};

// 400 invalid_request_error naming the field at fault.
ApiError invalid_request(std::string message, std::string param = {}, std::string code = {});

// The JSON body for an error (status is not part of it).
nlohmann::ordered_json error_body(const ApiError& e);

}  // namespace plumb::server
