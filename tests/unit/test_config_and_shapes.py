import pytest
from pydantic import ValidationError

from dropqa.api.auth import is_loopback
from dropqa.config import Settings
from dropqa.runtime.run import Answer
from dropqa.text.messages import messages, render


def test_env_overrides_nested_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("DROPQA_RETRIEVAL__TOP_K", "5")
    monkeypatch.setenv("DATABASE_URL", "postgresql://db.example/dropqa")
    monkeypatch.setenv("DROPQA_DATA_DIR", str(tmp_path))
    s = Settings()
    assert s.retrieval.top_k == 5 and s.database_url == "postgresql://db.example/dropqa"
    assert s.data_dir == tmp_path.resolve() and s.offline


def test_null_in_the_environment_turns_an_optional_setting_off(monkeypatch, tmp_path):
    monkeypatch.setenv("DROPQA_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DROPQA_ANSWER__ABSENT_ATTRIBUTE_SHARE", "null")
    monkeypatch.setenv("DROPQA_ANSWER__APART_SHARE", "0.4")
    s = Settings()
    assert s.answer.absent_attribute_share is None and s.answer.apart_share == 0.4


def test_yaml_config_file(monkeypatch, tmp_path):
    cfg = tmp_path / "dropqa.yaml"
    cfg.write_text("retrieval:\n  top_k: 3\nmodels:\n  chat:\n    model: qwen-plus\n", encoding="utf-8")
    monkeypatch.setenv("DROPQA_CONFIG", str(cfg))
    s = Settings()
    assert s.retrieval.top_k == 3 and not s.offline


def test_a_misspelt_setting_stops_with_its_name(monkeypatch, tmp_path):
    from dropqa.config import explain

    cfg = tmp_path / "dropqa.yaml"
    cfg.write_text("retrival:\n  top_k: 3\n", encoding="utf-8")
    monkeypatch.setenv("DROPQA_CONFIG", str(cfg))
    with pytest.raises(ValidationError) as caught:
        Settings()
    assert "retrival / DROPQA_RETRIVAL: unknown setting" in explain(caught.value)
    monkeypatch.delenv("DROPQA_CONFIG")
    monkeypatch.setenv("DROPQA_RETRIEVAL__TOPK", "3")
    with pytest.raises(ValidationError) as caught:
        Settings()
    assert "retrieval.topk / DROPQA_RETRIEVAL__TOPK: unknown setting" in explain(caught.value)


def test_messages_exist_in_both_languages_with_same_keys():
    assert set(messages("zh")) == set(messages("en"))
    assert render("zh", "answer_item", text="甲", n=2) == "甲 [2]"


def test_answer_shape_validates():
    src = {"document_id": "d", "document_name": "a.md", "section": "1 > 1.1", "node_id": "n", "snippet": "x",
           "relevance": 0.5, "page": None, "version": 1}
    a = Answer(answer="x", answerable=True, confidence="high", mode="direct", sources=[src], latency_ms=3,
               question="q")
    assert a.model_dump()["sources"][0]["section"] == "1 > 1.1"
    with pytest.raises(ValidationError):
        Answer(answer="x", answerable=True, confidence="sure", mode="direct", sources=[], latency_ms=1, question="q")


def test_loopback_detection():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


def _knobs(model: type, prefix: str = "") -> list[tuple[str, object]]:
    from pydantic import BaseModel

    out: list[tuple[str, object]] = []
    for name, f in model.model_fields.items():
        if isinstance(f.annotation, type) and issubclass(f.annotation, BaseModel):
            out += _knobs(f.annotation, prefix + name + ".")
        else:
            out.append((prefix + name, f))
    return out


def test_every_knob_says_what_it_does_and_every_number_is_bounded():
    import annotated_types as at

    knobs = _knobs(Settings)
    assert len(knobs) > 100
    assert [name for name, f in knobs if not f.description] == []
    numbers = [(name, f) for name, f in knobs if str(f.annotation) in ("<class 'int'>", "<class 'float'>",
                                                                          "int | None", "float | None")]
    assert [name for name, f in numbers
            if not any(isinstance(m, at.Ge | at.Gt | at.Le | at.Lt) for m in f.metadata)] == []
