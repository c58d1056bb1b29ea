"""Speed measurements of duelo against references timed in the same run."""
