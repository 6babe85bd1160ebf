"""Commands that drop data living elsewhere — in a database, a cluster, a bucket, a cloud account or
a container volume — where the working tree holds no copy: SQL clients (psql, mysql, sqlite3),
dropdb, redis-cli, kubectl, aws, gsutil, terraform, docker."""

from __future__ import annotations

import re

from ..runners import code_source
from ..verdict import HIGH, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import flag_names, operands_of

KUBECTL_VALUE_OPTIONS = {"-n", "--namespace", "--context", "--cluster", "--kubeconfig", "-l", "--selector", "-f"}
KUBECTL_VALUE_OPTIONS |= {"--filename", "-o", "--output", "--user", "-s", "--server", "--grace-period"}
AWS_VALUE_OPTIONS = {"--profile", "--region", "--endpoint-url", "--output", "--query", "--exclude", "--include"}
REDIS_VALUE_OPTIONS = {"-h", "-p", "-s", "-a", "-u", "-n", "--user", "--pass", "-r", "-i", "--tls", "--cacert"}
REDIS_FLUSHES = {"flushall", "flushdb"}
SQLITE_OUTPUT = re.compile(r"(?:^|\n)\s*\.(?:output|once)\s+(?!-)(\S+)")


class DataStoreRules(Walker):
    def _sql_client(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, f"{self.name} may change the database")
        source = code_source(self.name, rest)
        if source is None:
            return
        for code in source.code:
            self._foreign_code("sql", code, self.name, verdict)
            for target in SQLITE_OUTPUT.findall(code):  # sqlite3's .output FILE / .once FILE
                self._write_to(target, f"{self.name} .output", verdict)
        if source.script:
            self._run_script(source.script, self.name, verdict)

    def _cmd_psql(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._sql_client(rest, verdict)

    def _cmd_mysql(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._sql_client(rest, verdict)

    def _cmd_sqlite3(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._sql_client(rest, verdict)

    def _cmd_dropdb(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "dropdb destroys a database")

    def _cmd_mysqladmin(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = [w.lower() for w in operands_of(rest)]
        if "drop" in words:
            verdict.raise_to(HIGH, "mysqladmin drop destroys a database")
        else:
            verdict.raise_to(MEDIUM, "mysqladmin may change the database server")

    def _cmd_redis_cli(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = [w.lower() for w in operands_of(rest, REDIS_VALUE_OPTIONS)]
        if REDIS_FLUSHES & set(words):
            verdict.raise_to(HIGH, "redis-cli FLUSHALL/FLUSHDB deletes every key")
        else:
            verdict.raise_to(MEDIUM, "redis-cli may change the data store")

    def _cmd_kubectl(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest, KUBECTL_VALUE_OPTIONS)
        if words[:1] != ["delete"]:
            verdict.raise_to(MEDIUM, "kubectl may change the cluster")
            return
        kinds = words[1].split(",") if len(words) > 1 else []
        if {"namespace", "namespaces", "ns", "pv", "persistentvolume", "pvc", "node", "nodes"} & set(kinds):
            verdict.raise_to(HIGH, f"kubectl delete {words[1]} deletes everything in it")
        elif {"--all", "-A", "--all-namespaces"} & set(rest):
            verdict.raise_to(HIGH, "kubectl delete --all deletes every resource of the kind")
        else:
            verdict.raise_to(MEDIUM, "kubectl delete removes cluster resources")

    def _cmd_aws(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest, AWS_VALUE_OPTIONS)
        service, action = (words + ["", ""])[:2]
        recursive = "--recursive" in rest or "--force" in rest
        if service == "s3" and ((action in ("rm", "rb") and recursive) or (action == "sync" and "--delete" in rest)):
            verdict.raise_to(HIGH, f"aws s3 {action} deletes objects in a bucket (no copy in the working tree)")
        elif action.startswith(("delete-", "terminate-", "remove-", "deregister-")):
            verdict.raise_to(HIGH, f"aws {service} {action} destroys cloud resources")
        else:
            verdict.raise_to(MEDIUM, "aws may change cloud resources")

    def _cmd_gsutil(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest)
        letters, _ = flag_names(rest)
        if words[:1] == ["rm"] and ({"r", "R", "a"} & letters) or words[:1] == ["rb"]:
            verdict.raise_to(HIGH, f"gsutil {words[0]} deletes a bucket's objects")
        else:
            verdict.raise_to(MEDIUM, "gsutil may change cloud storage")

    def _cmd_terraform(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest)
        if words[:1] == ["destroy"] or (words[:1] == ["apply"] and "-destroy" in rest):
            verdict.raise_to(HIGH, "terraform destroy destroys the infrastructure it manages")
        elif words[:1] not in (["validate"], ["show"], ["output"], ["version"]):
            verdict.raise_to(MEDIUM, f"{self.name} may change infrastructure")

    def _cmd_pulumi(self, rest: list[str], verdict: RiskVerdict) -> None:
        if operands_of(rest)[:1] == ["destroy"]:
            verdict.raise_to(HIGH, "pulumi destroy destroys the infrastructure it manages")
        else:
            verdict.raise_to(MEDIUM, "pulumi may change infrastructure")

    def _cmd_docker(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest)
        verdict.raise_to(MEDIUM, f"{self.name} may change containers, images or volumes")
        if words[:2] == ["system", "prune"] and "--volumes" in rest:
            verdict.raise_to(HIGH, f"{self.name} system prune --volumes deletes every unused volume's data")
        elif words[:1] == ["volume"] and words[1:2] in (["rm"], ["prune"], ["remove"]):
            verdict.raise_to(HIGH, f"{self.name} volume {words[1]} deletes the data in volumes")
