"""The door's side of the write-back: the pipeline a job runs, the GitHub reads it makes, and the
acknowledgements it posts on the app's own comments."""
