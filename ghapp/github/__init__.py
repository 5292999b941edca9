"""The GitHub client: githubkit with the app's key, per-installation calls, values, errors."""
