"""Commands that change the running system: the crontab, services, the firewall, and signals to
every process of a user (or every process). Undoing them needs a person at the machine."""

from __future__ import annotations

from ..verdict import HIGH, LOW, MEDIUM, RiskVerdict
from ..walker import Walker
from ..words import flag_names, operands_of

SYSTEMCTL_READS = {"status", "show", "cat", "list-units", "list-unit-files", "list-timers", "list-sockets"}
SYSTEMCTL_READS |= {"is-active", "is-enabled", "is-failed", "list-dependencies", "list-jobs", "help", "get-default"}
SYSTEMCTL_STOPS = {"stop", "disable", "mask", "kill", "isolate", "set-default", "rescue", "emergency"}
SYSTEMCTL_POWER = {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "soft-reboot"}
SYSTEMCTL_VALUE_OPTIONS = {"-t", "--type", "-s", "--signal", "-H", "--host", "-M", "--machine", "-p", "--property"}
PKILL_VALUE_OPTIONS = {"-u", "--euid", "-U", "--uid", "-g", "--pgroup", "-G", "--group", "-P", "--parent"}
PKILL_VALUE_OPTIONS |= {"-s", "--session", "-t", "--terminal", "-F", "--pidfile", "--signal", "--ns", "--nslist"}
FIREWALLS = {"iptables", "ip6tables", "iptables-legacy", "ip6tables-legacy", "iptables-nft", "ebtables", "arptables"}
FIREWALL_FLUSH = {"-F", "--flush", "-X", "--delete-chain", "-P", "--policy", "-Z"}


class SystemRules(Walker):
    def _cmd_crontab(self, rest: list[str], verdict: RiskVerdict) -> None:
        letters, _ = flag_names(rest, {"-u", "-c"})
        if "r" in letters:
            verdict.raise_to(HIGH, "crontab -r removes your crontab")
        elif "l" in letters:
            verdict.raise_to(LOW, None)
        elif "e" in letters:
            verdict.raise_to(MEDIUM, "crontab -e edits your crontab")
        else:  # crontab FILE, crontab -: replaces the crontab with what it reads
            verdict.raise_to(HIGH, "crontab installs a new crontab: its commands run unasked, on a schedule")

    def _cmd_systemctl(self, rest: list[str], verdict: RiskVerdict) -> None:
        verb = (operands_of(rest, SYSTEMCTL_VALUE_OPTIONS) or ["list-units"])[0]
        user = "--user" in rest
        if verb in SYSTEMCTL_READS:
            return
        if verb in SYSTEMCTL_POWER:
            verdict.raise_to(HIGH, f"systemctl {verb} stops or restarts the machine")
        elif verb in SYSTEMCTL_STOPS and not user:
            verdict.raise_to(HIGH, f"systemctl {verb} stops a system service")
        else:
            whose = "your" if user else "the system's"
            verdict.raise_to(MEDIUM, f"systemctl {verb} changes {whose} services")

    def _cmd_service(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest)
        action = words[1] if len(words) > 1 else ""
        if action in ("stop", "restart", "force-stop"):
            verdict.raise_to(HIGH, f"service {action} stops the system service {words[0]}")
        elif action != "status":
            verdict.raise_to(MEDIUM, "service changes a system service")

    def _cmd_iptables(self, rest: list[str], verdict: RiskVerdict) -> None:
        if FIREWALL_FLUSH & set(rest) or any(a.startswith("-") and not a.startswith("--") and "F" in a for a in rest):
            verdict.raise_to(HIGH, "flushes the firewall's rules or changes its default policy")
        elif any(a in ("-L", "--list", "-S", "--list-rules") for a in rest):
            return
        else:
            verdict.raise_to(MEDIUM, "changes the firewall's rules")

    def _cmd_nft(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest)
        if words[:1] in (["flush"], ["delete"]):
            verdict.raise_to(HIGH, f"nft {words[0]} removes firewall rules")
        elif words[:1] != ["list"]:
            verdict.raise_to(MEDIUM, "changes the firewall's rules")

    def _cmd_ufw(self, rest: list[str], verdict: RiskVerdict) -> None:
        words = operands_of(rest)
        if words[:1] in (["disable"], ["reset"]):
            verdict.raise_to(HIGH, f"ufw {words[0]} turns the firewall's rules off")
        elif words[:1] != ["status"]:
            verdict.raise_to(MEDIUM, "changes the firewall's rules")

    def _cmd_pkill(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._kill_by_name("pkill", rest, verdict)

    def _cmd_killall(self, rest: list[str], verdict: RiskVerdict) -> None:
        self._kill_by_name("killall", rest, verdict)

    def _kill_by_name(self, name: str, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(MEDIUM, f"{name} stops processes")
        users = [rest[i + 1] for i, a in enumerate(rest[:-1]) if a in ("-u", "--user", "--euid", "-U", "--uid")]
        users += [a[2:] for a in rest if a.startswith("-u") and len(a) > 2]
        patterns = operands_of(rest, PKILL_VALUE_OPTIONS)
        if users and not patterns:
            verdict.raise_to(HIGH, f"{name} stops every process of {', '.join(users)}")
        elif any(p in (".", ".*", "", "^") for p in patterns):
            verdict.raise_to(HIGH, f"{name} matches every process")

    def _cmd_killall5(self, rest: list[str], verdict: RiskVerdict) -> None:
        verdict.raise_to(HIGH, "killall5 signals every process")
