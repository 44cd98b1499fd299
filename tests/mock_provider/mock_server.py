#!/usr/bin/env python3
"""Mock LLM provider for fishscale's tests (Python 3 standard library only).

Speaks three wire formats, chosen by the request path:
  POST /v1/messages                          Anthropic Messages API
  POST /v1/chat/completions                  OpenAI-compatible chat completions
  POST /v1beta/models/<m>:generateContent    Gemini (:streamGenerateContent?alt=sse streams)
Streaming (server-sent events) is used when the body says "stream": true
(anthropic, openai) or the path is :streamGenerateContent (gemini).

It replays a script: a list of responses, one per provider request, in order.
A response entry is one of
  {"text": "...", "tool_calls": [{"id": "...", "name": "...", "arguments": {...}}],
   "usage": {"input": 100, "output": 20}, "stop_reason": "...",
   "thought_signature": "..."}        rendered in the request's format
  {"status": 429, "headers": {"Retry-After": "1"}, "message": "..."}
                                      an error in the provider's error shape
  {"status": 200, "raw": "not json{"} a raw body
  {"drop": true}                      close the connection without answering
Any entry may carry "delay_ms" (wait before answering). When the script runs
out, the server answers 500. "{{KEY}}" anywhere in an entry (text, message,
headers, tool arguments) is replaced by the API key the request carried
(x-api-key, Authorization: Bearer or x-goog-api-key), as providers and
gateways that echo keys do ("Incorrect API key provided: sk-...").

Control endpoints:
  POST /__script    body {"responses": [...]}: load a script, clear the log
  GET  /__requests  the requests received: [{method, path, headers, body}]

Usage: mock_server.py [--port N] [--script FILE]; binds 127.0.0.1 (port 0 picks
a free port) and prints the port as its first stdout line.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"responses": [], "index": 0, "requests": []}


def chunks(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)] or [""]


def detect(path, body):
    if "/v1/messages" in path:
        fmt = "anthropic"
    elif "/v1/chat/completions" in path:
        fmt = "openai"
    elif ":generateContent" in path or ":streamGenerateContent" in path:
        fmt = "gemini"
    else:
        return None, False
    if fmt == "gemini":
        stream = ":streamGenerateContent" in path
    else:
        stream = isinstance(body, dict) and body.get("stream") is True
    return fmt, stream


def call_id(call, i):
    return call.get("id") or "call_%d" % (i + 1)


def usage_of(entry):
    u = entry.get("usage") or {}
    return int(u.get("input", 10)), int(u.get("output", 5))


def error_body(fmt, status, message):
    if fmt == "anthropic":
        kinds = {401: "authentication_error", 429: "rate_limit_error",
                 529: "overloaded_error", 400: "invalid_request_error"}
        return {"type": "error", "error": {"type": kinds.get(status, "api_error"),
                                           "message": message}}
    if fmt == "gemini":
        return {"error": {"code": status, "message": message, "status": "ERROR"}}
    return {"error": {"message": message, "type": "error", "code": status}}


# ---- Anthropic -------------------------------------------------------------

def anthropic_full(e):
    content = []
    if e.get("text"):
        content.append({"type": "text", "text": e["text"]})
    for i, c in enumerate(e.get("tool_calls", [])):
        content.append({"type": "tool_use", "id": call_id(c, i), "name": c["name"],
                        "input": c.get("arguments", {})})
    inp, out = usage_of(e)
    stop = e.get("stop_reason") or ("tool_use" if e.get("tool_calls") else "end_turn")
    return {"id": "msg_mock", "type": "message", "role": "assistant", "model": "mock",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": inp, "output_tokens": out}}


def anthropic_stream(e):
    inp, out = usage_of(e)
    ev = [("message_start", {"type": "message_start", "message": {
        "id": "msg_mock", "type": "message", "role": "assistant", "content": [],
        "model": "mock", "stop_reason": None, "usage": {"input_tokens": inp, "output_tokens": 1}}})]
    ev.append(("ping", {"type": "ping"}))
    idx = 0
    if e.get("text"):
        ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                           "content_block": {"type": "text", "text": ""}}))
        for piece in chunks(e["text"], 5):
            ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                               "delta": {"type": "text_delta", "text": piece}}))
        ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    for i, c in enumerate(e.get("tool_calls", [])):
        ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                           "content_block": {"type": "tool_use", "id": call_id(c, i),
                                                             "name": c["name"], "input": {}}}))
        for piece in chunks(json.dumps(c.get("arguments", {})), 7):
            ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                               "delta": {"type": "input_json_delta",
                                                         "partial_json": piece}}))
        ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
        idx += 1
    stop = e.get("stop_reason") or ("tool_use" if e.get("tool_calls") else "end_turn")
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop},
                                 "usage": {"output_tokens": out}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return "".join("event: %s\ndata: %s\n\n" % (n, json.dumps(d)) for n, d in ev)


# ---- OpenAI ----------------------------------------------------------------

def openai_full(e):
    msg = {"role": "assistant", "content": e.get("text")}
    if e.get("tool_calls"):
        msg["tool_calls"] = [{"id": call_id(c, i), "type": "function",
                              "function": {"name": c["name"],
                                           "arguments": c["arguments"] if isinstance(c.get("arguments"), str)
                                           else json.dumps(c.get("arguments", {}))}}
                             for i, c in enumerate(e["tool_calls"])]
    inp, out = usage_of(e)
    stop = e.get("stop_reason") or ("tool_calls" if e.get("tool_calls") else "stop")
    return {"id": "chatcmpl-mock", "object": "chat.completion", "model": "mock",
            "choices": [{"index": 0, "message": msg, "finish_reason": stop}],
            "usage": {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out}}


def openai_stream(e):
    def chunk(delta, finish=None):
        return {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    out_chunks = [chunk({"role": "assistant", "content": ""})]
    for piece in chunks(e.get("text") or "", 5):
        if piece:
            out_chunks.append(chunk({"content": piece}))
    for i, c in enumerate(e.get("tool_calls", [])):
        out_chunks.append(chunk({"tool_calls": [{"index": i, "id": call_id(c, i), "type": "function",
                                                 "function": {"name": c["name"], "arguments": ""}}]}))
        args = c["arguments"] if isinstance(c.get("arguments"), str) else json.dumps(c.get("arguments", {}))
        for piece in chunks(args, 6):
            out_chunks.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    stop = e.get("stop_reason") or ("tool_calls" if e.get("tool_calls") else "stop")
    out_chunks.append(chunk({}, stop))
    inp, out = usage_of(e)
    out_chunks.append({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "choices": [],
                       "usage": {"prompt_tokens": inp, "completion_tokens": out,
                                 "total_tokens": inp + out}})
    return "".join("data: %s\n\n" % json.dumps(c) for c in out_chunks) + "data: [DONE]\n\n"


# ---- Gemini ----------------------------------------------------------------

def gemini_parts(e):
    parts = []
    if e.get("text"):
        parts.append({"text": e["text"]})
    for i, c in enumerate(e.get("tool_calls", [])):
        p = {"functionCall": {"name": c["name"], "args": c.get("arguments", {})}}
        sig = e.get("thought_signature")
        if sig:
            p["thoughtSignature"] = "%s-%d" % (sig, i)
        parts.append(p)
    return parts


def gemini_full(e):
    inp, out = usage_of(e)
    return {"candidates": [{"content": {"role": "model", "parts": gemini_parts(e)},
                            "finishReason": e.get("stop_reason") or "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": inp, "candidatesTokenCount": out,
                              "totalTokenCount": inp + out},
            "modelVersion": "mock"}


def gemini_stream(e):
    inp, out = usage_of(e)
    parts = gemini_parts(e)
    evs = []
    for p in parts:
        if "text" in p:
            for piece in chunks(p["text"], 8):
                evs.append({"candidates": [{"content": {"role": "model", "parts": [{"text": piece}]},
                                            "index": 0}]})
        else:
            evs.append({"candidates": [{"content": {"role": "model", "parts": [p]}, "index": 0}]})
    evs.append({"candidates": [{"content": {"role": "model", "parts": []},
                                "finishReason": e.get("stop_reason") or "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": inp, "candidatesTokenCount": out,
                                  "totalTokenCount": inp + out}})
    return "".join("data: %s\r\n\r\n" % json.dumps(x) for x in evs)


RENDER = {"anthropic": (anthropic_full, anthropic_stream),
          "openai": (openai_full, openai_stream),
          "gemini": (gemini_full, gemini_stream)}


class Handler(BaseHTTPRequestHandler):
    server_version = "mock-llm/1"

    def log_message(self, fmt, *args):
        pass

    def send(self, status, body, ctype="application/json", headers=None):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        if self.path == "/__requests":
            with LOCK:
                data = json.dumps(STATE["requests"])
            self.send(200, data)
        else:
            self.send(404, json.dumps({"error": {"message": "not found"}}))

    def do_POST(self):
        raw = self.read_body()
        if self.path == "/__script":
            script = json.loads(raw or b"{}")
            with LOCK:
                STATE["responses"] = script.get("responses", [])
                STATE["index"] = 0
                STATE["requests"] = []
            self.send(200, "{\"ok\":true}")
            return
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        with LOCK:
            STATE["requests"].append({"method": "POST", "path": self.path,
                                      "headers": {k.lower(): v for k, v in self.headers.items()},
                                      "body": body})
            i = STATE["index"]
            STATE["index"] += 1
            entry = STATE["responses"][i] if i < len(STATE["responses"]) else None
        if entry is not None and "{{KEY}}" in json.dumps(entry):
            h = {k.lower(): v for k, v in self.headers.items()}
            key = h.get("x-api-key") or h.get("x-goog-api-key") or \
                (h.get("authorization") or "").replace("Bearer ", "", 1)
            entry = json.loads(json.dumps(entry).replace("{{KEY}}", json.dumps(key)[1:-1]))
        fmt, stream = detect(self.path, body)
        if fmt is None:
            self.send(404, json.dumps({"error": {"message": "unknown endpoint " + self.path}}))
            return
        if entry is None:
            self.send(500, json.dumps(error_body(fmt, 500, "mock script exhausted")))
            return
        if entry.get("delay_ms"):
            time.sleep(entry["delay_ms"] / 1000.0)
        if entry.get("drop"):
            self.close_connection = True
            self.connection.shutdown(2)
            return
        status = int(entry.get("status", 200))
        headers = entry.get("headers")
        if "raw" in entry:
            self.send(status, entry["raw"], headers=headers)
            return
        if status != 200:
            self.send(status, json.dumps(entry.get("body") or
                                         error_body(fmt, status, entry.get("message", "mock error"))),
                      headers=headers)
            return
        full, streamer = RENDER[fmt]
        if stream:
            self.send(200, streamer(entry), ctype="text/event-stream", headers=headers)
        else:
            self.send(200, json.dumps(full(entry)), headers=headers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script")
    a = ap.parse_args()
    if a.script:
        with open(a.script) as f:
            STATE["responses"] = json.load(f).get("responses", [])
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
