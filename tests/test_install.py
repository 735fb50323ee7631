"""README's install lines, the check that reads pip's report of the line without CUDA
(``.ci/install_check.py``, ``nox -s install-check``; the network check itself runs there, not
here), the one sentence of torch advice on every page, the torch range the ``torch`` nox session
tests, and nox's uv lookup."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def check() -> ModuleType:
    return _load(ROOT / ".ci" / "install_check.py", "install_check")


def _readme() -> str:
    return (ROOT / "README.md").read_text()


def test_readme_has_one_line_without_cuda_and_one_with(check: ModuleType) -> None:
    lines = check.install_lines(_readme())
    cpu, cuda = (check.pip_install_args(lines[k]) for k in ("cpu", "cuda"))
    assert cpu[:2] == ["-e", ".[all]"] and cuda == ["-e", ".[all]"]
    # the line without CUDA takes PyTorch's CPU index; the CUDA line PyPI's (CUDA) build
    assert check.index_urls(cpu) == [check.CPU_INDEX]
    assert check.index_urls(cuda) == []
    for line in lines.values():
        assert line.startswith("python3 -m venv .venv && . .venv/bin/activate && ")


def test_the_parser_reads_what_the_readme_says(check: ModuleType) -> None:
    text = (
        "## Quick start\n\n```bash\n# without CUDA (laptops)\npython3 -m pip install -e '.[x]' "
        "--extra-index-url=https://i.example/cpu\n# with CUDA\npip install -e .\n```\n"
    )
    lines = check.install_lines(text)
    assert check.pip_install_args(lines["cpu"]) == [
        "-e",
        ".[x]",
        "--extra-index-url=https://i.example/cpu",
    ]
    assert check.index_urls(check.pip_install_args(lines["cpu"])) == ["https://i.example/cpu"]
    with pytest.raises(ValueError, match=r"has 2 install lines for 'cpu'"):
        check.install_lines(text.replace("# with CUDA", "# without CUDA too"))
    with pytest.raises(ValueError, match="expected one 'pip install'"):
        check.pip_install_args("python3 -m venv .venv")


def _report(*packages: tuple[str, str]) -> dict:
    return {
        "install": [
            {
                "metadata": {"name": n, "version": v},
                "download_info": {"url": f"https://files.example/{n}-{v}.whl"},
            }
            for n, v in packages
        ]
    }


def test_the_report_check_flags_every_cuda_package(check: ModuleType) -> None:
    cuda = _report(
        ("torch", "2.14.1"),
        ("nvidia-cudnn-cu13", "9.24.0.43"),
        ("nvidia_cublas", "13.1.1.3"),  # names as a report may spell them
        ("cuda-toolkit", "13.0.3.0"),
        ("triton", "3.8.0"),
        ("numpy", "2.4.6"),
    )
    assert check.cuda_packages(cuda) == [
        "nvidia-cudnn-cu13==9.24.0.43",
        "nvidia_cublas==13.1.1.3",
        "cuda-toolkit==13.0.3.0",
        "triton==3.8.0",
    ]
    # a CUDA build of torch is flagged by its version even with its libraries elsewhere
    assert check.cuda_packages(_report(("torch", "2.14.1+cu130"))) == ["torch==2.14.1+cu130"]
    cpu = _report(("torch", "2.14.1+cpu"), ("numpy", "2.4.6"), ("tritonclient", "2.0"))
    assert check.cuda_packages(cpu) == []


_BACKEND = """
def _meta(d):
    import os
    info = os.path.join(d, "tiny-1.0.dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\\nName: tiny\\nVersion: 1.0\\n")
    return "tiny-1.0.dist-info"

def prepare_metadata_for_build_wheel(d, config_settings=None):
    return _meta(d)

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(d, config_settings=None, metadata_directory=None):
    raise NotImplementedError("a dry run never builds")
"""


def test_the_check_reads_a_real_pip_report(check: ModuleType, tmp_path: Path) -> None:
    # pip's own report of a local, dependency-free install: the parser's keys are pip's
    pkg = tmp_path / "tiny"
    (pkg / "tiny").mkdir(parents=True)
    (pkg / "tiny" / "__init__.py").write_text("")
    (pkg / "backend.py").write_text(_BACKEND)  # metadata only: a dry run builds nothing
    (pkg / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
        '[project]\nname = "tiny"\nversion = "1.0"\n'
    )
    report = tmp_path / "report.json"
    res = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index",
         "--no-deps", "--no-build-isolation", "--report", str(report), "-q", str(pkg)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    data = json.loads(report.read_text())
    assert [(n, v) for n, v, _ in check.report_packages(data)] == [("tiny", "1.0")]
    assert check.cuda_packages(data) == []


# --- the one torch sentence ------------------------------------------------------------------
def _torch_sentence(text: str) -> str:
    flat = re.sub(r"\s+", " ", text)
    found = re.findall(r"PyTorch: pip cannot detect CUDA.*?\.(?=\s|$)", flat)
    assert len(found) == 1, found
    return found[0]


def test_the_torch_advice_is_one_sentence_the_same_on_every_page(check: ModuleType) -> None:
    readme = _torch_sentence(_readme())
    assert check.CPU_INDEX in readme and "nvidia-" in readme
    for page in ("docs/getting-started.md", "docs/interop.md"):
        assert _torch_sentence((ROOT / page).read_text()) == readme, page
    # no page gives older, contrary torch advice (install a pinned CPU wheel first)
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text()
        assert "pip install torch==" not in text, page.name


# --- the torch range ---------------------------------------------------------------------------
def test_the_extras_pin_no_exact_version() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for name, reqs in extras.items():
        for req in reqs:
            assert "==" not in req and "~=" not in req, f"extra {name}: {req}"


def test_the_torch_session_tests_the_bounds_pyproject_allows() -> None:
    pytest.importorskip("nox")  # the [all] extra installs it
    noxfile = _load(ROOT / "noxfile.py", "chainrules_noxfile")
    pyproject = (ROOT / "pyproject.toml").read_text()
    low, spec = noxfile.torch_bounds(pyproject)
    (req,) = tomllib.loads(pyproject)["project"]["optional-dependencies"]["torch"]
    assert spec == req and f">={low}" in req.replace(" ", "")
    # the getting-started table shows the same range
    assert f"`{req}`" in (ROOT / "docs" / "getting-started.md").read_text()
    with pytest.raises(ValueError, match="is not 'torch>=LOW"):
        noxfile.torch_bounds(
            '[project]\nname = "x"\n[project.optional-dependencies]\ntorch = ["torch"]\n'
        )


# --- nox finds uv ------------------------------------------------------------------------------
def test_nox_sessions_do_not_print_uv_binary_not_found(tmp_path: Path) -> None:
    pytest.importorskip("nox")
    assert importlib.util.find_spec("uv") is not None, (
        "the [all] extra installs nox[uv]; reinstall it: pip install -e '.[all]'"
    )
    (tmp_path / "noxfile.py").write_text(
        "import nox\n\n@nox.session(venv_backend='none')\ndef hello(session):\n"
        "    session.log('hello')\n"
    )
    res = subprocess.run(
        [sys.executable, "-m", "nox", "-f", str(tmp_path / "noxfile.py"), "-s", "hello"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    out = res.stdout + res.stderr
    assert res.returncode == 0 and "hello" in out, out
    assert "uv binary not found" not in out, out
