"""Benchmarks and load clients of the site, outside the product (never installed with it).

    python -m bench.render    a table page's render and a card play's round trip, in process
    python -m bench.engine    the rules engine's speed against OpenSpiel
    python -m bench.load      the production server under many tables, against a bare app
    python -m bench.bots      a person's wait at many bot tables; bot workers through Redis
    python -m bench.analysis  a finished match's analysis, and the double-dummy solver's speed

``bench.servers`` runs the servers (gunicorn, Redis) and ``bench.client`` the people and
their sockets; ``bench.phases`` the load benchmark's phases; ``bench.barews`` is the bare
WebSocket app the site is held against. The benchmarks import the product (``spades``)
and the test extras (aiohttp); nothing in ``spades`` or ``tests`` imports them (but the
tests that check the benchmarks still run).
"""
