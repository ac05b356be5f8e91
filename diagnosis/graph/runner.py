"""``run_graph``: one diagnosis run through a compiled graph, with the partial trace kept on failure.

The graph is streamed rather than invoked so that the events appended before a failure survive it: a
run that raises still leaves its route for the partial trace (seed 000 §3, last row). Streaming also gives
the caller every node boundary, where a run can be stopped (cancelled) between two node attempts.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from contextlib import closing
from typing import Any, cast

from langchain_core.runnables import RunnableConfig

from diagnosis.graph.builder import DiagnosisGraph
from diagnosis.graph.state import DiagnosisState, read_count, read_events
from diagnosis.graph.topology import RECURSION_LIMIT

#: Keys of ``configurable`` that the runner owns: both are the run id.
RESERVED_CONFIG_KEYS = frozenset({"thread_id", "run_id"})


class GraphRunError(RuntimeError):
    """A run that raised before reaching END; ``__cause__`` is the original exception.

    It carries what the caller needs to save a partial trace: the events appended so far, the evidence
    retry count, and the node whose attempt raised (``None`` when the engine itself stopped).
    """

    def __init__(
        self, run_id: str, *, events: list[dict[str, Any]], evidence_retry_count: int, failed_node: str | None
    ) -> None:
        super().__init__(self.describe(run_id, failed_node, len(events)))
        self.run_id = run_id
        self.events = events
        self.evidence_retry_count = evidence_retry_count
        self.failed_node = failed_node

    @staticmethod
    def describe(run_id: str, failed_node: str | None, attempts: int) -> str:
        where = f"in node {failed_node}" if failed_node else "in the graph engine"
        return f"diagnosis run {run_id} failed {where} after {attempts} node attempts"


class GraphStopped(GraphRunError):
    """The caller's ``should_stop`` asked the run to stop at a node boundary; nothing raised.

    A ``GraphRunError`` so that whoever saves the partial trace of a run that did not end saves this one
    too; no node failed, so ``failed_node`` is ``None`` and the route ends in the last node that ran.
    """

    def __init__(self, run_id: str, *, events: list[dict[str, Any]], evidence_retry_count: int) -> None:
        super().__init__(run_id, events=events, evidence_retry_count=evidence_retry_count, failed_node=None)

    @staticmethod
    def describe(run_id: str, failed_node: str | None, attempts: int) -> str:
        return f"diagnosis run {run_id} was stopped at a node boundary after {attempts} node attempts"


def run_config(
    run_id: str, config_extra: Mapping[str, Any] | None = None, *, session_id: str | None = None
) -> RunnableConfig:
    """The config of one run: the step bound, ``thread_id=run_id``, the actions' ``configurable``, and the
    run's and its session's ids as metadata (seed 004 §5: what LangGraph hands to callbacks and tracers)."""
    if not isinstance(run_id, str) or not run_id.strip():
        raise ValueError(f"run_id must be a non-blank string, got {run_id!r}")
    extra = dict(config_extra or {})
    clash = sorted(RESERVED_CONFIG_KEYS & set(extra))
    if clash:
        raise ValueError(f"config_extra must not set {', '.join(clash)}: the runner sets them to the run id")
    metadata = {"run_id": run_id} | ({"session_id": session_id} if session_id else {})
    return RunnableConfig(
        recursion_limit=RECURSION_LIMIT,
        configurable={**extra, "thread_id": run_id, "run_id": run_id},
        metadata=metadata,
    )


def run_graph(
    compiled: DiagnosisGraph,
    initial_state: DiagnosisState,
    *,
    run_id: str,
    session_id: str | None = None,
    config_extra: Mapping[str, Any] | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    context: Any = None,
) -> DiagnosisState:
    """Run the graph to END and return the final state, or raise ``GraphRunError`` with the partial events.

    ``on_event`` receives each attempt's event as soon as the graph has merged it, so a caller can mirror
    the route into its timeline while the run goes on. If it raises, the run fails like a node would (a
    persistence failure ends the run, seed 000 §3), with no node named as failed. ``context`` is the run's
    LangGraph runtime context (what the actions read through ``get_runtime``).

    ``should_stop`` is asked at every node boundary: before the first attempt, after each attempt's event
    was reported, and before END. When it answers true no further attempt starts and ``GraphStopped`` is
    raised with the events so far; an attempt that is running is never interrupted.
    """
    config = run_config(run_id, config_extra, session_id=session_id)
    latest: Mapping[str, Any] = initial_state
    reported = len(read_events(initial_state))
    running: str | None = None
    stopped = False
    try:
        # LangGraph yields each "values" chunk (the input, then the state after each step) before it starts
        # the next step's attempt, so leaving the loop there means the next attempt never starts; closing
        # the stream (a generator, typed as an iterator) then unwinds LangGraph's loop at once.
        parts = compiled.stream(initial_state, config, stream_mode=["values", "tasks"], context=context)
        with closing(cast(Generator[Any, None, None], parts)) as stream:
            for part in stream:
                # With a list of modes LangGraph yields (mode, chunk) pairs; both modes' chunks are dicts.
                mode, chunk = cast(tuple[str, dict[str, Any]], part)
                # A task chunk with "input" opens an attempt; one without error closes it. An attempt that
                # raised stays open: it is the node the partial trace ends in.
                if mode == "values":
                    latest = chunk
                    events = read_events(chunk)
                    if on_event is not None:
                        for event in events[reported:]:
                            on_event(event)
                    reported = len(events)
                    if should_stop is not None and should_stop():
                        stopped = True
                        break
                elif "input" in chunk:
                    running = chunk["name"]
                elif chunk.get("error") is None:
                    running = None
    # Whatever a node or the engine raised, the caller must still get the partial route to save; the
    # original exception stays attached as __cause__.
    except Exception as exc:
        raise GraphRunError(
            run_id,
            events=read_events(latest),
            evidence_retry_count=read_count(latest, "evidence_retry_count"),
            failed_node=running,
        ) from exc
    if stopped:
        raise GraphStopped(
            run_id, events=read_events(latest), evidence_retry_count=read_count(latest, "evidence_retry_count")
        )
    return cast(DiagnosisState, dict(latest))
