"""Commands a workflow ran are history too: executions.conversation_id names the conversation
(source = 'workflow'), and an index on (source, executed_at) serves `parsec history --source`.

Frozen: no imports of live code, so this revision means the same forever.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("executions", sa.Column("conversation_id", sa.String(26)))
    op.create_index("ix_executions_source_time", "executions", ["source", "executed_at"])


def downgrade() -> None:
    op.drop_index("ix_executions_source_time", "executions")
    with op.batch_alter_table("executions") as batch:
        batch.drop_column("conversation_id")
