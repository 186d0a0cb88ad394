#
from __future__ import absolute_import

from . import pytest_utils
