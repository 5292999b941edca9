"""Registering the GitHub App from its manifest (`app.yml`, installed beside this file) through GitHub's manifest flow (`hindsight setup`)."""

from __future__ import annotations

from ghapp.registration.files import Credentials, refuse_overwrite, write_credentials
from ghapp.registration.flow import Registration
from ghapp.registration.manifest import MANIFEST, GitHubSite, RegistrationError, load_manifest

__all__ = [
    "MANIFEST",
    "Credentials",
    "GitHubSite",
    "Registration",
    "RegistrationError",
    "load_manifest",
    "refuse_overwrite",
    "write_credentials",
]
