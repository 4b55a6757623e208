#!/usr/bin/env python3
"""How many prompt tokens a Reception request costs, as the model server counts them.

Reads a piped REPL session whose output ends with a `/request` (the JSON body Reception sent
for the last message), sends that body once more, not streamed and with `max_tokens` 1, and
prints the server's `usage.prompt_tokens` for the whole request and for its system message
alone, with the system prompt's size in bytes. Streamed answers carry no usage on llama.cpp's
server, hence the second, non-streamed request.

    printf 'what is the capital of france?\\n/request\\n/quit\\n' \\
      | reception --backend PROFILE --soul default --plain \\
      | OPENAI_API_KEY=... scripts/prompt-tokens.py http://127.0.0.1:8081/v1

The key, if the server wants one, comes from OPENAI_API_KEY and is sent only to that URL.
"""
import json
import os
import sys
import urllib.request


def prompt_tokens(base_url: str, body: dict) -> int:
    body = dict(body, stream=False, max_tokens=1)
    body.pop("stream_options", None)
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["OPENAI_API_KEY"]
    request = urllib.request.Request(base_url.rstrip("/") + "/chat/completions", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=900) as response:
        return json.load(response)["usage"]["prompt_tokens"]


def last_request_body(transcript: str) -> dict:
    # /request prints the body pretty-printed: from a line "{" to the next line "}".
    start = transcript.rfind("\n{\n")
    if start < 0:
        sys.exit("no /request output (a line holding only '{') on standard input")
    end = transcript.index("\n}", start + 1) + 2
    return json.loads(transcript[start + 1:end])


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: prompt-tokens.py BASE_URL   (the REPL's output on standard input)")
    body = last_request_body(sys.stdin.read())
    messages = body.get("messages", [])
    system = messages[0] if messages and messages[0].get("role") == "system" else None
    whole = prompt_tokens(sys.argv[1], body)
    if system is None:
        print(f"request {whole} prompt tokens (no system message)")
        return
    alone = prompt_tokens(sys.argv[1], dict(body, messages=[system]))
    print(f"request {whole} prompt tokens; system message alone {alone}; system prompt {len(system['content'].encode())} bytes")


if __name__ == "__main__":
    main()
