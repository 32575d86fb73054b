"""Parser knobs live in Settings.ingestion and reach the parsers through ParseContext."""
import pytest
from pydantic import ValidationError

from dropqa.config import IngestionSettings
from dropqa.ingestion.parsers import ParseContext
from dropqa.ingestion.parsers.csv import CsvParser


def test_context_defaults_are_the_settings_defaults() -> None:
    assert ParseContext.from_settings("a.csv", IngestionSettings()) == ParseContext(filename="a.csv")


def test_settings_reach_the_csv_parser() -> None:
    data = "名称,数量\n" + "".join(f"项目{i},{i}\n" for i in range(30))
    ing = IngestionSettings(rows_per_chunk=10, chunk_max_chars=0)
    tables = [n for n in CsvParser().parse(data.encode(), ParseContext.from_settings("a.csv", ing)).walk()
              if n.node_type == "table"]
    assert len(tables) == 3
    default = [n for n in CsvParser().parse(data.encode(), ParseContext(filename="a.csv")).walk()
               if n.node_type == "table"]
    assert len(default) == 1


@pytest.mark.parametrize("bad", [{"rows_per_chunk": 0}, {"chunk_max_chars": -1}, {"max_image_pixels": 0},
                                 {"rows_per_chunck": 10}])
def test_bounds_and_unknown_keys_are_errors(bad: dict[str, int]) -> None:
    with pytest.raises(ValidationError, match=next(iter(bad))):
        IngestionSettings(**bad)


def test_every_ingestion_parser_knob_is_described() -> None:
    for name in ("rows_per_chunk", "chunk_max_chars", "csv_max_field_chars", "xlsx_read_only_bytes",
                 "max_image_pixels", "max_pages", "max_chars"):
        assert IngestionSettings.model_fields[name].description, name
