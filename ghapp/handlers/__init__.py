"""Webhook handlers, one module per concern; `ghapp.routes` composes them."""
