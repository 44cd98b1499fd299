"""The mock model provider (tests/mock_provider/mock_server.py) as the
agent tests use it: started on a free port of its own, told its next
answers (POST /__script), stopped; the environment that sends a site's
or the CLI's OpenRouter calls to it; and a site started with a mock of
its own (start_site / stop_site, the agent modules' setup). Not a test
module (run.py runs test_*.py)."""
import http.client
import json
import os
import subprocess
import sys

from harness import ROOT, Server

MOCK = os.path.join(ROOT, "tests", "mock_provider", "mock_server.py")


class MockProvider:
    def __init__(self):
        # a stopped worker hangs up mid-answer: the mock's broken-pipe traces are noise
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


def start_site(env=None, users=()):
    """A started site whose OpenRouter calls go to a mock provider of its
    own, with these members added (harness's add_users); env is added to
    the site's environment, the mock's keys last. Returns (server, mock);
    stop_site ends both. The mock is stopped again if the site does not
    start, so a failed setup leaves no process behind."""
    mock = MockProvider()
    try:
        srv = Server(env={**(env or {}), **mock.env()}).start()
    except BaseException:
        mock.stop()
        raise
    srv.add_users(*users)
    return srv, mock


def stop_site(srv, mock):
    """Ends what start_site started: the site (its data removed), then the mock."""
    try:
        srv.cleanup()
    finally:
        mock.stop()
