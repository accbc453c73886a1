"""A channel made through the contract alone (tests/test_channel_contract.py): no file of bot/ names it."""
