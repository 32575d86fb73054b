from dropqa.text.rivals import about_another, rival_of, row_key

KNOWN = "岗位: 销售岗 岗位: 设计岗 研发岗 企业版 专业版 falcon-02 falcon-03 enterprise plan standard plan"


def test_row_key_is_the_first_cells_value():
    assert row_key("岗位: 设计岗 · 显示器型号: BenQ SW272U") == "设计岗"
    assert row_key("Project: Falcon-03 | Budget code: CC-4215-036") == "Falcon-03"
    assert row_key("no label here") is None


def test_same_sort_other_item_is_a_rival():
    assert rival_of("设计岗", "销售岗配的显示器是什么型号？", KNOWN) == "销售岗"
    assert rival_of("专业版", "Nova 3.0 企业版多少钱一个席位？", KNOWN) == "企业版"
    assert rival_of("Falcon-02", "What is the budget code of Falcon-03?", KNOWN) == "falcon-03"
    assert rival_of("3月1日", "3月2日谁值班？", KNOWN) == "3月2日"
    assert rival_of("Standard plan", "How much is the Enterprise plan?", KNOWN) == "enterprise plan"


def test_the_item_itself_a_bare_number_or_unknown_wording_is_no_rival():
    assert rival_of("研发岗", "研发岗配的显示器是什么型号？", KNOWN) is None
    assert rival_of("1", "2024年容器化项目的负责人是谁？", KNOWN) is None
    # "差的员工" ends like 普通员工 but is no item the documents write
    assert rival_of("普通员工", "去上海出差的员工每晚住宿能报多少？", KNOWN) is None
    assert not about_another("外设: 头戴式耳机 · 型号: Jabra Evolve2 40", "销售岗配的显示器是什么型号？", KNOWN)
