"""Finished matches and their figures: the replay and score sheet, the analysis, charts,
how deals are made (fairness), and records shut while other tables play the same boards."""
