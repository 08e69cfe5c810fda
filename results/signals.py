"""Signals the results services send for the apps above them."""

from django.dispatch import Signal

# Sent after the commit of a change the page cache's data version does not see by itself (an
# update() that fires no post_save), with `rounds`, the ids of the rounds it changed:
# pages.caching forgets its versions in this process, pages.warming warms those rounds' pages.
data_changed = Signal()
