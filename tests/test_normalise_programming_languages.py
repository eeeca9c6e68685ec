"""kg.normalise.programming_languages: language names in cell text."""

from __future__ import annotations


import pytest

from kg.normalise import languages


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("python", ("Python",)),
        ("SDK: Python (agent.memory.steps; CodeAgent/ToolCallingAgent)", ("Python",)),
        ("1.2k★ Python", ("Python",)),
        ("99.9k★ +999/mo Go", ("Go",)),
        ("~55k★, ~2k/mo, Rust", ("Rust",)),
        ("21.1k★ +123/mo C", ("C",)),
        ("9.9k★ Python/C", ("Python", "C")),
        ("700★ C++/Python", ("C++", "Python")),
        ("REST, SDK: Python, JS/TS", ("Python", "JavaScript", "TypeScript")),
        ("REST, gRPC, SDK: Python, Java, Node.js, Go", ("Python", "Java", "JavaScript", "Go")),
        ("REST, SDK: JS, Python, PHP, Go, Ruby, Java, .NET, Swift, Rust",
         ("JavaScript", "Python", "PHP", "Go", "Ruby", "Java", "C#", "Swift", "Rust")),
        ("REST + gRPC + SDK (Python, Node, Go, Java, .NET, Dart); Google AI Studio + Vertex AI",
         ("Python", "JavaScript", "Go", "Java", "C#", "Dart")),
        ("CLI (Go) — TUI", ("Go",)),
        ("REST, SPARQL, SDK: Java, Python, Lisp", ("Java", "Python", "Lisp")),
        ("SDK: R, Julia, Scala, Kotlin, Elixir", ("R", "Julia", "Scala", "Kotlin", "Elixir")),
        ("Python, python, PYTHON", ("Python",)),
        # no false positives from ordinary words
        ("Self-host (Go install)", ()),
        ("ready to go; good to go", ()),
        ("R&D team; Plan C", ()),
        ("Google, Golangish, Rustic, Javanese, Gopher", ()),
        ("HuggingFace Transformers; vLLM; llama.cpp", ()),
        ("325★ Jupyter Notebook", ()),
        ("Web app", ()),
        ("", ()),
    ],
)
def test_languages(text: str, expected: tuple[str, ...]) -> None:
    assert languages(text) == expected
