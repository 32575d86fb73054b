from dropqa.ingestion.parsers.markdown import parse_markdown_text

DOC = """---
title: ignored front matter
---
Intro before any heading.

# 第3章 基础设施

## 3.2 云平台建设

预计投入 500 万预算用于容器化改造。

- 第一项
- 第二项
  - 子项

| 项目 | 预算 |
|---|---|
| 容器化 | 500万 |
| 网络 | 200万 |

```python
print("hi")
```

### 3.2.1 容器化改造

> 引用的一段话

# Second chapter
"""


def test_heading_nesting_and_content_types():
    doc = parse_markdown_text(DOC, "年报.md")
    assert doc.title == "年报"
    intro, ch3, ch_second = doc.children
    assert intro.node_type == "paragraph" and intro.content == "Intro before any heading."
    assert ch3.title == "第3章 基础设施" and ch_second.title == "Second chapter"
    (s32,) = ch3.children
    assert s32.title == "3.2 云平台建设"
    kinds = [c.node_type for c in s32.children]
    assert kinds == ["paragraph", "list", "table", "code", "section"]
    lst = s32.children[1]
    assert lst.content.splitlines() == ["- 第一项", "- 第二项", "  - 子项"]
    table = s32.children[2]
    assert table.metadata["table"] == {"header": ["项目", "预算"], "rows": [["容器化", "500万"], ["网络", "200万"]]}
    assert "项目: 容器化 | 预算: 500万" in table.content
    assert s32.children[4].title == "3.2.1 容器化改造"
    assert s32.children[4].children[0].content == "引用的一段话"


def test_ordered_lists_keep_numbers():
    doc = parse_markdown_text("1. first\n2. second\n", "x.md")
    assert doc.children[0].content == "1. first\n2. second"


def test_twenty_thousand_headings_do_not_recurse():
    text = "\n".join(f"{'#' * (1 + i % 6)} H{i}\n\ntext {i}\n" for i in range(20_000))
    doc = parse_markdown_text(text, "many.md")
    assert sum(1 for n in doc.walk() if n.is_section) == 20_000
