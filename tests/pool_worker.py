"""A worker module for tests/test_pool.py (``settings["worker"]`` names it): it answers each
message with what the message asks, after the time it asks to take."""

from __future__ import annotations

import time


class Worker:
    def __init__(self, settings: dict) -> None:
        self.settings = settings

    def refresh(self) -> None:
        pass

    def handle(self, msg: dict) -> dict:
        time.sleep(msg.get("sleep", 0.0))
        return {"status": 200, "echo": msg["echo"], "body": bytes([msg["echo"] % 256]) * msg.get("size", 0)}


def run_update(settings: dict, text: str) -> dict:
    return {"status": 204, "text": text}
