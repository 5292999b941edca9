"""Fix PRs at the door: `/fix` opens one through the Git Data API; its close is written back
(docs/fixes.md). The pure part is `continual/fixes.py`."""
