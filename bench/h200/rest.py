"""The allsum REST API from the bench scripts (matrix.py, rest_sweep.py): one JSON call with the bearer token."""
import json, urllib.request


def client(url, token):
    """A function call(method, path, body=None) -> the parsed JSON answer (None for an empty one)."""
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

    def call(method, path, body=None):
        req = urllib.request.Request(url + path, method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"null")

    return call
