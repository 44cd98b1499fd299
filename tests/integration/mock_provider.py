"""The mock model provider (tests/mock_provider/mock_server.py) as the
agent tests use it: started on a free port of its own, told its next
answers (POST /__script), stopped; and the environment that sends a site's
or the CLI's OpenRouter calls to it. Not a test module (run.py runs
test_*.py)."""
import http.client
import json
import os
import subprocess
import sys

from harness import ROOT

MOCK = os.path.join(ROOT, "tests", "mock_provider", "mock_server.py")


class MockProvider:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, MOCK, "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.proc.stdout.readline().strip())

    def env(self, key="sk-or-test-not-a-real-key"):
        """OpenRouter at the mock with this key; no Anthropic key."""
        return {"FISHSCALE_OPENROUTER_BASE_URL": "http://127.0.0.1:%d" % self.port,
                "OPENROUTER_API_KEY": key, "ANTHROPIC_API_KEY": ""}

    def script(self, responses):
        """The mock's next answers, in order."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("POST", "/__script", body=json.dumps({"responses": responses}),
                     headers={"Content-Type": "application/json"})
        assert conn.getresponse().status == 200
        conn.close()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
