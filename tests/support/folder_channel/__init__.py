"""A folder channel, as a newcomer adds one (tests/test_three_trial_changes.py copies it into ``bot`` as the package ``folder``)."""
