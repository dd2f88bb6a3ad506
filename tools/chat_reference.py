#!/usr/bin/env python3
"""Writes reference prompts and parses from DeepSeek-V4's official chat encoding for plumb's tests.

    python3 tools/chat_reference.py DIR_WITH_encoding_dsv4.py tests/text/data/chat_reference.jsonl

DIR holds the official encoding_dsv4.py from the DeepSeek-V4 release (its `encoding/` folder). Each output line
is one case: a conversation rendered by encode_messages (or "error" when the official code raises), or a
completion parsed by parse_message_from_completion_text. tests/text/chat_reference_test.cpp replays them.
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import encoding_dsv4 as official  # noqa: E402

BOS, EOS = official.bos_token, official.eos_token

def call(id_, name, arguments):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city, in °C or °F",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 1e1, "default": 1.5e-5}},
                    "required": ["city"], "additionalProperties": False}}},
    {"type": "function", "function": {"name": "search", "description": "Web search. Quote \"exact\" phrases;\nuse \\ for escapes.",
     "parameters": {"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "number", "default": 1e16}}}}},
]

CONVERSATIONS = {
    "chat_basic": [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is 2+2?"}],
    "no_system": [{"role": "user", "content": "Hi"}],
    "empty": [],
    "system_only": [{"role": "system", "content": "Only a system prompt."}],
    "multi_turn": [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "reasoning_content": "greet", "content": "Hi there!"},
        {"role": "user", "content": "Capital of France?"},
        {"role": "assistant", "reasoning_content": "Paris.", "content": "Paris."},
        {"role": "user", "content": "And of Spain?"},
    ],
    "last_is_assistant": [
        {"role": "user", "content": "Q1"},
        {"role": "assistant", "reasoning_content": "r1", "content": "A1"},
        {"role": "user", "content": "Q2"},
        {"role": "assistant", "reasoning_content": "r2", "content": "A2"},
    ],
    "assistant_content_none": [
        {"role": "user", "content": "Q"},
        {"role": "assistant", "content": None, "reasoning_content": None},
        {"role": "user", "content": "Q again"},
    ],
    "tools_parallel_calls": [
        {"role": "system", "content": "Use tools.", "tools": TOOLS},
        {"role": "user", "content": "Weather in Paris and Tokyo, and news?"},
        {"role": "assistant", "reasoning_content": "Three calls.", "content": "Let me check.", "tool_calls": [
            call("c1", "get_weather", json.dumps({"city": "Paris", "days": 2})),
            call("c2", "get_weather", json.dumps({"city": "東京", "days": 1.5, "detail": True, "units": None})),
            call("c3", "search", json.dumps({"q": "news \"today\"\nnow", "n": [1, 2], "opts": {"a": {"b": -0.0}}}, ensure_ascii=False)),
        ]},
        {"role": "tool", "tool_call_id": "c3", "content": "news result"},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"temp\": 21}"},
        {"role": "tool", "tool_call_id": "zz", "content": "unknown id"},
        {"role": "tool", "tool_call_id": "c2", "content": "晴れ"},
        {"role": "user", "content": "Summarise please."},
        {"role": "assistant", "reasoning_content": "Done.", "content": "Paris 21°, Tokyo sunny."},
        {"role": "user", "content": "Thanks!"},
    ],
    "tool_arguments_odd": [
        {"role": "system", "content": "", "tools": TOOLS[:1]},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [
            call("a", "get_weather", "not json at all"),
            call("b", "get_weather", "{}"),
            call("c", "get_weather", "{\"city\": \"Rome\", \"city2\": \"x\\u0001y\", \"f\": 0.0001, \"g\": 123456789012345678}"),
        ]},
        {"role": "tool", "tool_call_id": "a", "content": ""},
    ],
    "tool_result_without_id": [
        {"role": "system", "content": "s", "tools": TOOLS[1:]},
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": "", "tool_calls": [call("", "search", "{\"q\": \"x\"}")]},
        {"role": "tool", "content": "result"},
        {"role": "user", "content": "more"},
    ],
    "response_format": [
        {"role": "system", "content": "Reply in JSON.", "response_format": {"type": "json_schema", "json_schema":
            {"name": "answer", "schema": {"type": "object", "properties": {"score": {"type": "number", "maximum": 1.0}}}}}},
        {"role": "user", "content": "Rate it."},
    ],
    "developer_with_tools": [
        {"role": "system", "content": "s"},
        {"role": "latest_reminder", "content": "2026-01-01,Paris,fr"},
        {"role": "developer", "content": "Find facts.", "tools": TOOLS[1:], "response_format": {"type": "json_object"}},
        {"role": "assistant", "reasoning_content": "search it", "tool_calls": [call("x", "search", "{\"q\": \"facts\"}")]},
        {"role": "tool", "tool_call_id": "x", "content": "[1]"},
        {"role": "assistant", "reasoning_content": "answer", "content": "Facts."},
    ],
    "developer_dropped": [
        {"role": "developer", "content": "Old developer turn"},
        {"role": "assistant", "reasoning_content": "old", "content": "ok"},
        {"role": "user", "content": "new question"},
    ],
    "consecutive_users": [
        {"role": "user", "content": "part one"},
        {"role": "user", "content": "part two"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "next"},
    ],
    "latest_reminder_after_user": [
        {"role": "user", "content": "question"},
        {"role": "latest_reminder", "content": "reminder"},
    ],
    "multiple_systems": [
        {"role": "system", "content": "first"},
        {"role": "system", "content": "second"},
        {"role": "user", "content": "u"},
    ],
    "task_query": [{"role": "user", "content": "search this", "task": "query"}],
    "task_authority": [{"role": "system", "content": "s"}, {"role": "user", "content": "q", "task": "authority"}],
    "task_domain": [{"role": "user", "content": "q", "task": "domain"}],
    "task_read_url": [{"role": "user", "content": "see https://example.com", "task": "read_url"}],
    "task_action": [{"role": "user", "content": "weather?", "task": "action"}, {"role": "assistant", "content": "Search"}],
    "task_title": [
        {"role": "user", "content": "Tell me a joke"},
        {"role": "assistant", "reasoning_content": "joke", "content": "A joke.", "task": "title"},
        {"role": "assistant", "content": "Jokes"},
    ],
    "task_then_user": [
        {"role": "user", "content": "first", "task": "query"},
        {"role": "user", "content": "second"},
    ],
    "wo_eos_prefill": [
        {"role": "user", "content": "Write a poem"},
        {"role": "assistant", "reasoning_content": "plan", "content": "Roses are", "wo_eos": True},
    ],
    "unicode": [
        {"role": "system", "content": "助手 🦀 — «ok»\ttab"},
        {"role": "user", "content": "こんにちは\n\n\\n literal"},
    ],
}

ERRORS = {
    "unknown_role": [{"role": "bot", "content": "x"}],
    "unknown_task": [{"role": "user", "content": "x", "task": "summarise"}],
    "empty_developer": [{"role": "developer", "content": ""}],
    "arguments_not_object": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "", "tool_calls": [call("a", "f", "[1, 2]")]},
    ],
}

COMPLETIONS = [
    ("thinking", "Simple arithmetic.</think>2 + 2 = 4." + EOS),
    ("chat", "2 + 2 = 4." + EOS),
    ("thinking", "</think>" + EOS),
    ("thinking", "plan</think>Checking.\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
     "<｜DSML｜parameter name=\"city\" string=\"true\">Paris \"<b>\"\nFrance</｜DSML｜parameter>\n"
     "<｜DSML｜parameter name=\"days\" string=\"false\">2</｜DSML｜parameter>\n"
     "<｜DSML｜parameter name=\"opts\" string=\"false\">{\"a\": [1, 2.5]}</｜DSML｜parameter>\n</｜DSML｜invoke>\n"
     "<｜DSML｜invoke name=\"search\">\n\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>" + EOS),
    ("chat", "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"x\" string=\"true\">é</｜DSML｜parameter>\n"
     "</｜DSML｜invoke>\n</｜DSML｜tool_calls>"),
    ("chat", "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke  \t name=\"g\">\n\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>" + EOS),
    ("thinking", "no end of thinking" + EOS),
    ("chat", "no eos"),
    ("chat", "done" + EOS + "more"),
    ("chat", "has <think> inside" + EOS),
    ("thinking", "a</think>b</think>c" + EOS),
    ("chat", "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"x\" string=\"true\">1</｜DSML｜parameter>\n"
     "<｜DSML｜parameter name=\"x\" string=\"true\">2</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>" + EOS),
    ("chat", "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"x\" string=\"maybe\">1</｜DSML｜parameter>\n"
     "</｜DSML｜invoke>\n</｜DSML｜tool_calls>" + EOS),
    ("chat", "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>trailing" + EOS),
    ("chat", "\n\n<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"f\">\n</｜DSML｜invoke>\n"),
]

def main():
    out = []
    for name, messages in CONVERSATIONS.items():
        for mode in ("chat", "thinking"):
            for drop in (True, False):
                for effort in (None, "high", "max"):
                    for bos in (True, False):
                        if (not drop or effort or not bos) and name not in ("multi_turn", "chat_basic", "developer_dropped"):
                            continue
                        prompt = official.encode_messages(json.loads(json.dumps(messages)), thinking_mode=mode,
                                                          drop_thinking=drop, add_default_bos_token=bos,
                                                          reasoning_effort=effort)
                        out.append({"name": name, "messages": messages, "thinking": mode == "thinking",
                                    "drop_thinking": drop, "reasoning_effort": effort, "add_bos": bos,
                                    "prompt": prompt})
    for name, messages in ERRORS.items():
        try:
            official.encode_messages(json.loads(json.dumps(messages)), thinking_mode="thinking")
            raise SystemExit(f"{name}: the official encoder accepted it")
        except (AssertionError, ValueError, NotImplementedError, AttributeError, KeyError):
            out.append({"name": name, "messages": messages, "thinking": True, "drop_thinking": True,
                        "reasoning_effort": None, "add_bos": True, "error": True})
    for mode, text in COMPLETIONS:
        case = {"name": "parse", "completion": text, "thinking": mode == "thinking"}
        try:
            parsed = official.parse_message_from_completion_text(text, thinking_mode=mode)
            case["parsed"] = {"reasoning_content": parsed["reasoning_content"], "content": parsed["content"],
                              "tool_calls": [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                                             for c in parsed["tool_calls"]]}
        except (AssertionError, ValueError):
            case["error"] = True
        out.append(case)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        for case in out:
            f.write(json.dumps(case, ensure_ascii=False) + "\n")
    print(f"wrote {len(out)} cases to {sys.argv[2]}")

main()
