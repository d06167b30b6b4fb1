"""The capacity model's figures for a person's phone are the served stack's: Chromium
opens the play page as a phone, joins, connects its socket and closes, and what the
stack counted (local/operations.py) agrees with `calibration.json`'s `per_phone`
operation by operation (`cli.calibrate --phones-only` wrote it)."""

from __future__ import annotations

from browser import chromium_path

from cli.calibrate_phones import count_phones
from core.capacity.calibration import Calibration

AGREEMENT = 0.05


def test_a_phone_joining_asks_what_the_model_plans_for_it(service_url: str) -> None:
    chromium_path()  # skipped without Chromium, failed where it is required
    counted = count_phones(service_url, phones=2)["per_phone"]
    planned, _ = Calibration.load().per_person("people")
    api = ("http:", "apigateway:")
    assert {k for k in counted if k.startswith(api)} == {k for k in planned if k.startswith(api)}
    apart = {
        key: f"planned {planned.get(key, 0):.2f}, counted {n:.2f}"
        for key, n in counted.items()
        if key.startswith(api) and abs(planned.get(key, 0) - n) > AGREEMENT * n
    }
    assert not apart, apart
