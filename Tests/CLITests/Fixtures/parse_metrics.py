#!/usr/bin/env python3
"""Parses Prometheus text exposition (format 0.0.4) from standard input with the Prometheus Python client's
own parser (prometheus_client.parser.text_string_to_metric_families) and prints every sample as a JSON
line: {"family", "type", "name", "labels", "value"}. Any parse error exits 1 with the error on stderr.
Used by MonitorMetricsTests as an independent reader of the monitor's /metrics."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

text = sys.stdin.read()
try:
    for family in text_string_to_metric_families(text):
        if not family.documentation:
            raise ValueError("no HELP for " + family.name)
        for sample in family.samples:
            print(json.dumps({"family": family.name, "type": family.type, "name": sample.name,
                              "labels": sample.labels, "value": sample.value}, sort_keys=True))
except Exception as error:  # the parser raises ValueError and others on malformed input
    print("parse error: %r" % (error,), file=sys.stderr)
    sys.exit(1)
