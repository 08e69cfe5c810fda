"""Signals the results services send for the apps above them."""

from django.dispatch import Signal

# Sent after the commit of a change the page cache's data version does not see by itself (an
# update() that fires no post_save): pages.caching forgets its data version in this process.
data_changed = Signal()
