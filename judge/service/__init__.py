"""``judge serve``: an HTTP service over one warm sandbox pool.

A thin layer over the public API (:class:`judge.Judge`): the service parses and validates
requests, admits them into a bounded queue and hands them to a ``Judge``; the answer is the
same results-file line ``judge run`` writes. See the README, "At scale".
"""

from judge.service.app import ServiceConfig, create_app

__all__ = ["ServiceConfig", "create_app"]
