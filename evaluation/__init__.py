"""Tournaments between policies, with statistics a user can trust."""
