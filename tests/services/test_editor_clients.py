"""Solving from the learner's own editor and notebook, against a real site (the web server and Celery workers
on PostgreSQL and Redis): the installed `paperlab` command, run as a learner runs it (a process of its own,
which cannot import torch or the server's code), and a notebook that `paperlab notebook` wrote, executed by
nbclient in a real Jupyter kernel. The token comes from the learner's browser, as on the page."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import nbformat
import psycopg
import pytest
from nbclient import NotebookClient

from tests.client.client_support import NO_SERVER_IMPORTS
from tests.services.services_support import CORRECT, REPO_ROOT, SLOW_CORRECT, WRONG, Cluster, free_port, submit

pytestmark = [pytest.mark.services, pytest.mark.slow]

PAPERLAB = Path(sys.executable).with_name("paperlab")  # the console script `pip install` made
MOCO = REPO_ROOT / "problems" / "moco"
# A learner's MoCo with two classic mistakes: gradient flows into the key, and the moving average is turned round.
MOCO_WRONG = (
    (MOCO / "reference.py").read_text()
    .replace("k = _normalise_rows(key.detach())", "k = _normalise_rows(key)")
    .replace("m * key.detach() + (1.0 - m) * query.detach()", "m * query.detach() + (1.0 - m) * key.detach()")
)


@dataclass
class Result:
    status: int
    out: str
    err: str


@dataclass
class Learner:
    """A learner's machine: a config folder of its own, and the `paperlab` command."""

    home: Path
    env: dict[str, str]

    def paperlab(self, *args: str, stdin: str = "", cwd: Path | None = None) -> Result:
        done = subprocess.run([str(PAPERLAB), *args], cwd=cwd or self.home, env=self.env, input=stdin,
                              capture_output=True, text=True, timeout=180)  # fmt: skip
        return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def browser(cluster: Cluster) -> Iterator[httpx.Client]:
    """The learner's browser on the site: its cookie is the learner the tokens belong to."""
    with httpx.Client(base_url=cluster.base_url, timeout=30) as client:
        client.get("/")
        yield client


@pytest.fixture
def learner(tmp_path: Path) -> Learner:
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(NO_SERVER_IMPORTS)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PAPERLAB_", "CELERY_")) and key not in ("DATABASE_URL", "PYTHONPATH")}  # fmt: skip
    env.update(PAPERLAB_CONFIG_DIR=str(tmp_path / "config"), PYTHONPATH=str(guard), NO_COLOR="1")
    home = tmp_path / "work"
    home.mkdir()
    return Learner(home=home, env=env)


def make_token(browser: httpx.Client, name: str = "laptop") -> str:
    response = browser.post("/api/tokens", json={"name": name})
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def logged_in(learner: Learner, cluster: Cluster, browser: httpx.Client) -> Learner:
    result = learner.paperlab("login", cluster.base_url, stdin=make_token(browser) + "\n")
    assert result.status == 0, result.err
    return learner


# ------------------------------------------------------------------------------------------------ the command


def test_the_command_cannot_import_torch_or_the_server(learner: Learner) -> None:
    """The guard every test here runs the command under is real: it stops the packages a learner may lack."""
    done = subprocess.run([str(Path(sys.executable)), "-c", "import torch"], env=learner.env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode != 0 and "the paperlab command imported torch" in done.stderr


def test_login_fetch_test_wrong_then_right_then_try(cluster: Cluster, browser: httpx.Client, learner: Learner) -> None:
    token = make_token(browser)
    login = learner.paperlab("login", cluster.base_url, stdin=token + "\n")
    assert login.status == 0, login.err
    assert "Logged in to" in login.out and "laptop" in login.out
    stored = Path(learner.env["PAPERLAB_CONFIG_DIR"]) / "credentials.json"
    assert stored.stat().st_mode & 0o777 == 0o600

    listed = learner.paperlab("list")
    assert listed.status == 0, listed.err
    assert any(line.split()[1:3] == ["add_one", "Not"] for line in listed.out.splitlines()), listed.out

    fetched = learner.paperlab("fetch", "add_one")
    assert fetched.status == 0, fetched.err
    folder = learner.home / "add_one"
    assert sorted(p.name for p in folder.iterdir()) == [".paperlab.json", "add_one.py", "statement.md",
                                                         "try_add_one.py"]  # fmt: skip
    assert "raise NotImplementedError" in (folder / "add_one.py").read_text()
    assert (folder / "statement.md").read_text() == httpx.get(f"{cluster.base_url}/api/problems/add_one").json()[
        "statement"]

    (folder / "add_one.py").write_text(WRONG)
    wrong = learner.paperlab("test", "add_one/add_one.py")
    assert wrong.status == 1, wrong.out + wrong.err
    lines = wrong.out.splitlines()
    first_failure = next(i for i, line in enumerate(lines) if line.startswith("✗ "))
    tallies = next(i for i, line in enumerate(lines) if line.startswith("  ✗ add_one  "))
    assert first_failure < tallies  # failures first, then the functions' tallies
    assert "add_one.hand_example" in wrong.out and "expected" in wrong.out
    assert lines[-2].startswith("Not solved yet: ")
    assert lines[-1].startswith(f"Attempt: {cluster.base_url}/submissions/")

    (folder / "add_one.py").write_text(CORRECT)
    right = learner.paperlab("test", "add_one/add_one.py")
    assert right.status == 0, right.out + right.err
    assert "Solved: all required checks pass, 3 / 3" in right.out and "/problems/add_one/notes" in right.out
    assert "[##############################] 3 / 3 checks" in right.out

    (folder / "try_add_one.py").write_text("import torch\nprint('tried', add_one(torch.zeros(2)))\n")
    tried = learner.paperlab("try", "add_one/add_one.py")
    assert tried.status == 0, tried.err
    assert "tried tensor([1., 1.])" in tried.out and "Your script finished in" in tried.err

    # The browser that made the token sees both attempts as its own, and the problem as solved.
    assert len(browser.get("/api/problems/add_one/submissions").json()) == 2
    progress = {p["slug"]: p["progress"] for p in browser.get("/api/catalogue").json()["others"]}
    assert progress["add_one"] == "solved"


def test_a_run_still_being_graded_makes_the_command_wait_and_say_so(
    cluster: Cluster, browser: httpx.Client, learner: Learner, tmp_path: Path
) -> None:
    logged_in(learner, cluster, browser)
    assert "time.sleep(seconds)" in SLOW_CORRECT
    slow = submit(browser, SLOW_CORRECT.replace("time.sleep(seconds)", "time.sleep(4)"), slug="slow_add")
    assert slow.status_code == 202, slow.text  # graded for 4 s or more: the learner's one run in flight
    solution = tmp_path / "mine.py"
    solution.write_text(SLOW_CORRECT)
    waited = learner.paperlab("test", str(solution), "--problem", "slow_add")
    assert "Your previous run is still being graded" in waited.out
    assert "Waiting 2 s, as the server asks" in waited.out
    assert waited.status == 0, waited.out + waited.err


def test_ctrl_c_stops_the_grading_as_the_pages_stop_button_does(cluster: Cluster, browser: httpx.Client,
                                                               learner: Learner, tmp_path: Path) -> None:  # fmt: skip
    logged_in(learner, cluster, browser)
    solution = tmp_path / "mine.py"
    solution.write_text(SLOW_CORRECT.replace("time.sleep(seconds)", "time.sleep(4)"))
    # The first bar is printed when the client sees the quick check's verdict. On a busy machine the client can
    # see both verdicts at once, the grading over before it could be stopped: that try proves nothing, so it
    # submits again (at most three tries; the problem's limits keep the slow call under 5 s).
    for _ in range(3):
        process = subprocess.Popen([str(PAPERLAB), "test", str(solution), "--problem", "slow_add"], env=learner.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert process.stdout is not None
        while not (line := process.stdout.readline()).startswith("["):  # the bar: the first check has its verdict
            assert line, process.stderr.read() if process.stderr else ""
        if "] 1 / 2 checks" in line:
            break
        assert "] 2 / 2 checks" in line, line
        process.communicate(timeout=120)
    else:
        pytest.fail("in three tries the client never saw the grading in progress")
    process.send_signal(signal.SIGINT)  # while wait() sleeps in the sandbox
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, out + err
    assert "Stopping the grading" in out and "Stopped by you. 1 / 2 checks passed before the stop." in out
    assert browser.get("/api/problems/slow_add/submissions").json()[0]["status"] == "done"


@pytest.mark.parametrize(("setup", "args", "status", "says"), [
    pytest.param("none", ["list"], 3, "You are not logged in", id="no-token"),
    pytest.param("revoked", ["list"], 3, "was revoked on", id="revoked-token"),
    pytest.param("expired", ["list"], 3, "expired on", id="expired-token"),
    pytest.param("login", ["fetch", "no_such_problem"], 2, "There is no problem 'no_such_problem'",
                 id="unknown-problem"),
    pytest.param("login", ["test", "missing.py", "--problem", "add_one"], 2, "There is no file missing.py",
                 id="no-such-file"),
    pytest.param("login", ["test", "orphan.py"], 2, "Which problem is orphan.py for?", id="no-problem-named"),
])  # fmt: skip
def test_the_command_says_what_went_wrong(cluster: Cluster, browser: httpx.Client, learner: Learner,
                                          database: psycopg.Connection, setup: str, args: list[str], status: int,
                                          says: str) -> None:  # fmt: skip
    if setup != "none":
        logged_in(learner, cluster, browser)
        (learner.home / "orphan.py").write_text(CORRECT)
    if setup == "revoked":
        token_id = browser.get("/api/tokens").json()[0]["id"]
        assert browser.delete(f"/api/tokens/{token_id}").status_code == 204
    if setup == "expired":
        token_id = browser.get("/api/tokens").json()[0]["id"]
        database.execute("UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = %s", (token_id,))
    result = learner.paperlab(*args)
    assert result.status == status, result.out + result.err
    assert says in result.err and not result.err.startswith("Traceback")


def test_an_unreachable_server_is_named(learner: Learner) -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    result = learner.paperlab("login", closed, stdin="plt_" + "x" * 43 + "\n")
    assert result.status == 4
    assert f"Cannot reach PaperLab at {closed}" in result.err


def test_logout_revokes_the_token_on_the_server(cluster: Cluster, browser: httpx.Client, learner: Learner) -> None:
    logged_in(learner, cluster, browser)
    assert len(browser.get("/api/tokens").json()) == 1
    result = learner.paperlab("logout")
    assert result.status == 0 and "Revoked the token" in result.out
    assert browser.get("/api/tokens").json() == []
    assert learner.paperlab("list").status == 3


def test_tokens_never_reach_the_servers_logs(cluster: Cluster, browser: httpx.Client, learner: Learner) -> None:
    token = make_token(browser)
    assert learner.paperlab("login", cluster.base_url, stdin=token + "\n").status == 0
    assert learner.paperlab("list").status == 0
    assert learner.paperlab("login", cluster.base_url, stdin=token[:-2] + "zz\n").status == 3
    assert token not in cluster.logs() and token[:-2] not in cluster.logs()


# ------------------------------------------------------------------------------------------------ the notebook


def execute(notebook: nbformat.NotebookNode, folder: Path) -> str:
    """Runs every cell in a fresh kernel; the last cell's final display, as HTML."""
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}})
    client.execute()
    outputs = [output for output in notebook.cells[-1].outputs if "text/html" in output.get("data", {})]
    assert outputs, notebook.cells[-1].outputs
    html: str = outputs[-1]["data"]["text/html"]
    return html


def test_a_notebook_from_paperlab_notebook_shows_the_verdicts_inline(
    cluster: Cluster, browser: httpx.Client, learner: Learner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logged_in(learner, cluster, browser)
    folder = tmp_path / "notebooks"
    written = learner.paperlab("notebook", "moco", str(folder / "moco.ipynb"))
    assert written.status == 0, written.err
    assert (folder / "helpers.py").read_text() == (MOCO / "helpers.py").read_text()
    notebook = nbformat.read(folder / "moco.ipynb", as_version=4)  # type: ignore[no-untyped-call]  # nbformat: untyped
    nbformat.validate(notebook)
    assert [cell.source for cell in notebook.cells if cell.cell_type == "code"][0] == "%load_ext paperlab"
    assert notebook.cells[-1].source == "%paperlab moco"
    starter_code = (MOCO / "starter.py").read_text().rstrip("\n")
    starter = next(i for i, cell in enumerate(notebook.cells) if cell.source == starter_code)
    # The kernel finds the site and token where `paperlab login` put them (it is the learner's machine).
    monkeypatch.setenv("PAPERLAB_CONFIG_DIR", learner.env["PAPERLAB_CONFIG_DIR"])

    # `%paperlab moco`: the functions the notebook defined (here, with the two mistakes).
    notebook.cells[starter].source = MOCO_WRONG
    failed = execute(notebook, folder)
    assert failed.startswith('<div class="paperlab-verdict"') and 'class="summary summary--failed"' in failed
    assert "Not solved yet: " in failed
    assert 'data-check-id="momentum_update.formula"' in failed and "expected" in failed and "got" in failed
    assert "Your result matches a known mistake: weights the query by m and the key by 1 - m." in failed
    assert 'data-check-id="contract.moco_loss.autograd"' in failed
    assert "<svg" not in failed

    # `%%paperlab moco`: the cell's own code, here the right one.
    notebook.cells[-1].source = "%%paperlab moco\n" + (MOCO / "reference.py").read_text()
    solved = execute(notebook, folder)
    assert 'class="summary summary--passed"' in solved and "Solved: all required checks pass" in solved
    assert solved.count("<svg") >= 1 and 'data-series="loss"' in solved
    assert f'href="{cluster.base_url}/problems/moco/notes"' in solved
    assert 'class="check check--failed"' not in solved
