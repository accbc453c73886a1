"""A folder channel, as a newcomer adds one (tests/test_three_trial_changes.py copies it to ``bot/folder/``)."""
