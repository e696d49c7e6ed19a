"""Things found by name: languages, sandbox back ends, executors, importers, scoring
primitives, grading workflows.

One small registry shape for all of them, in the style of lm-evaluation-harness's
``api/registry.py`` but lazy: a name is registered with the dotted path of the object that
implements it (``"judge.languages.cpp:Cpp"``), and the module is imported only when the
name is first looked up, so ``judge --help`` does not import five toolchains' modules.
An object may also register itself with the decorator form when its module is imported.

External packages add entries through an entry point group (``judge.languages``,
``judge.sandboxes``, ...): ``name = "package.module:attribute"``. Entry points are read on
the first lookup of a name the registry does not know, and by :meth:`Registry.names`; a name
still unknown then imports the external modules once, for the aliases they declare.

An unknown name is a :class:`judge.errors.UnknownName` that suggests the closest known one:
``unknown language 'pyhton' (did you mean 'python'?)``.
"""

from __future__ import annotations

import difflib
import importlib
import threading
from typing import Any, Callable, Generic, Iterator, TypeVar

from judge.errors import RegistryLoadError, UnknownName

T = TypeVar("T")


class Registry(Generic[T]):
    """Names to objects of one kind, resolved lazily.

    ``factory=True`` means the registered object is called once (without arguments) on first
    lookup and the instance is what :meth:`get` returns (languages are such singletons)."""

    def __init__(self, kind: str, group: str | None = None, factory: bool = False) -> None:
        self.kind = kind
        self.group = group
        self.factory = factory
        self._targets: dict[str, str | Any] = {}
        self._aliases: dict[str, str] = {}
        self._loaded: dict[str, T] = {}
        self._entry_points_read = False
        self._external: list[str] = []  # entry-point names whose modules are not imported yet
        self._lock = threading.RLock()

    # -- registration ----------------------------------------------------------------
    def add(self, name: str, target: str | Any, aliases: tuple[str, ...] | list[str] = ()) -> None:
        """Register ``name`` for ``target``: an object, or ``"module:attribute"`` to import
        on first use. Registering a name twice with different targets is an error."""
        key = self._key(name)
        with self._lock:
            previous = self._targets.get(key)
            if previous is not None and previous is not target and previous != target \
                    and not (isinstance(previous, str) and not isinstance(target, str)
                             and _dotted(target) == previous):
                raise ValueError("%s %r is registered twice (%r and %r)"
                                 % (self.kind, name, previous, target))
            if isinstance(previous, str) and not isinstance(target, str):
                self._loaded.pop(key, None)
            self._targets[key] = target
            for alias in aliases:
                self._aliases[self._key(alias)] = key

    def register(self, name: str, aliases: tuple[str, ...] | list[str] = ()
                 ) -> Callable[[Any], Any]:
        """Decorator form of :meth:`add`: ``@LANGUAGES.register("cpp", aliases=("c++",))``."""

        def decorate(obj: Any) -> Any:
            self.add(name, obj, aliases)
            return obj

        return decorate

    # -- lookup ------------------------------------------------------------------------
    def canonical(self, name: str) -> str:
        """The registered name for ``name`` or one of its aliases; UnknownName otherwise."""
        key = self._key(name)
        key = self._aliases.get(key, key)
        if key in self._targets:
            return key
        self._read_entry_points()
        key = self._aliases.get(key, key)
        if key in self._targets:
            return key
        self._import_external()  # their aliases are declared in their modules
        key = self._aliases.get(key, key)
        if key in self._targets:
            return key
        raise UnknownName(self.kind, str(name), self._suggest(str(name)), self.names())

    def get(self, name: str) -> T:
        key = self.canonical(name)
        with self._lock:
            if key in self._loaded:
                return self._loaded[key]
            target = self._targets[key]
            try:
                obj = _resolve(target) if isinstance(target, str) else target
            except (ImportError, AttributeError, SyntaxError) as exc:
                raise RegistryLoadError(self.kind, key, str(target), exc) from exc
            if self.factory and callable(obj):
                obj = obj()
            self._loaded[key] = obj
            return obj

    def __contains__(self, name: object) -> bool:
        try:
            self.canonical(str(name))
        except UnknownName:
            return False
        return True

    def names(self) -> list[str]:
        """Every registered name, in registration order (built-ins first)."""
        self._read_entry_points()
        return list(self._targets)

    def aliases(self) -> dict[str, str]:
        return dict(self._aliases)

    def items(self) -> Iterator[tuple[str, T]]:
        for name in self.names():
            yield name, self.get(name)

    # -- internals ---------------------------------------------------------------------
    @staticmethod
    def _key(name: str) -> str:
        return str(name).strip().lower()

    def _suggest(self, name: str) -> str | None:
        known = list(self._targets) + list(self._aliases)
        close = difflib.get_close_matches(self._key(name), known, n=1, cutoff=0.6)
        if not close:
            return None
        return self._aliases.get(close[0], close[0])

    def _read_entry_points(self) -> None:
        if self._entry_points_read or not self.group:
            return
        with self._lock:
            if self._entry_points_read:
                return
            self._entry_points_read = True
            from importlib.metadata import entry_points

            for point in entry_points(group=self.group):
                if self._key(point.name) not in self._targets:
                    self._targets[self._key(point.name)] = point.value
                    self._external.append(self._key(point.name))

    def _import_external(self) -> None:
        """Import the modules of entries added by entry points (once, and only when a name is
        not found): a module that registers itself with aliases declares them only when it
        runs. A module that fails to import is left for :meth:`get` to report."""
        with self._lock:
            pending, self._external = self._external, []
            for key in pending:
                target = self._targets.get(key)
                if isinstance(target, str):
                    try:
                        _resolve(target)
                    except Exception:  # noqa: BLE001 - reported by get() when it is asked for
                        continue


def _dotted(obj: Any) -> str:
    return "%s:%s" % (getattr(obj, "__module__", ""), getattr(obj, "__qualname__", ""))


def _resolve(target: str) -> Any:
    module, _, attribute = target.partition(":")
    obj: Any = importlib.import_module(module)
    for part in filter(None, attribute.split(".")):
        obj = getattr(obj, part)
    return obj


__all__ = ["Registry", "RegistryLoadError", "UnknownName"]
