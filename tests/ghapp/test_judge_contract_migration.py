"""Migration 0022: the judge's kept answers name their contract; old answers are never replayed."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine, insert, select

from continual.judge import CONTRACT, Judgement, Outcome, Revision, judgements, keep
from continual.tables import Account, JudgeVerdictRow, Repository
from ghapp.db import alembic_config
from tests.continual.test_pull import reply
from tests.support.migrations import NOW, upgrade

REVISION = "0022_judge_contract"
BODY = "I went with the approach from the other module in the end."


def test_old_answers_are_kept_as_old_and_the_revision_is_asked_again(
    engine_before: Engine,
) -> None:
    engine = engine_before
    revision = Revision.of(reply(7, BODY, 100))
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=NOW))
        conn.execute(insert(Repository).values(id=10, account_id=1, full_name="octo/app"))
        conn.execute(
            insert(JudgeVerdictRow.__table__),
            {
                "account_id": 1,
                "repository_id": 10,
                "seat": "judge",
                "reply_id": revision.reply_id,
                "reply_updated_ms": revision.updated_ms,
                "body_sha256": revision.body_sha256,
                "outcome": "accepted",
                "quote": "went with the approach",
                "asked_ms": NOW,
            },
        )
    upgrade(engine, REVISION)
    with engine.connect() as conn:
        [old] = conn.execute(select(JudgeVerdictRow.contract, JudgeVerdictRow.outcome)).all()
        assert tuple(old) == ("hindsight.judge/1", "accepted")
        assert judgements(conn, 10, "judge", [revision]) == {}  # not replayed as an answer
    # The same revision is asked again; its new answer is kept beside the old row.
    agreed = Judgement(Outcome.AGREED, None)
    with engine.begin() as conn:
        keep(
            conn,
            account_id=1,
            repository_id=10,
            seat="judge",
            revision=revision,
            judgement=agreed,
            now=NOW + 1,
        )
    with engine.connect() as conn:
        assert judgements(conn, 10, "judge", [revision]) == {revision: agreed}
        contracts = sorted(conn.execute(select(JudgeVerdictRow.contract)).scalars())
    assert contracts == ["hindsight.judge/1", CONTRACT]

    # Down again: the new contract's answers go, the old ones stay.
    config = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, "0021_thread_evidence")
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT outcome FROM judge_verdicts").scalars().all()
    assert rows == ["accepted"]
    upgrade(engine, "head")
