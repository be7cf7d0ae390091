"""The WSGI entry point: ``flask --app app run`` or ``gunicorn app:app`` (see docs/serving.md)."""

from spades.web import create_app

app = create_app()
