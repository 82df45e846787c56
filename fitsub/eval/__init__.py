"""Evaluation: test sets, the settings compared, the run over them, the report and plots
(`fitsub eval`). The metrics themselves live in `fitsub.metrics`."""
