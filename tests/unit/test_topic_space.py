"""Topics group documents by subject, not by language (issue 24): concepts put Chinese and English key terms
in one vocabulary, centring each language removes the language from the similarity, and a document close
to a second group carries its topic too. No database: the functions refresh_topics runs, on made-up data."""

from __future__ import annotations

import uuid

import numpy as np

from dropqa.config import TopicSettings
from dropqa.ingestion.phrases import noun_headed, subject_of, valid_name
from dropqa.ingestion.pipeline import Indexer
from dropqa.ingestion.rows import NodeRow
from dropqa.ingestion.topic_clusters import Holders, candidate_names, pair_name, phrase_concepts, rank_phrases
from dropqa.ingestion.topic_space import affinity, center, concept_matrix, group, place, similarity
from dropqa.text.concepts import FILE_WORDS, concepts, english_glosses, specificity, title_text

TRAVEL_ZH = "差旅费报销规定：出差住宿费标准，伙食补助，报销流程须提交发票。差旅费报销由财务部审核。"
TRAVEL_EN = "Travel expense policy: hotel limits for business travel, meal allowance, and expense claims with receipts."
BACKUP_ZH = "数据库每天备份，每季度进行一次恢复演练，备份保留30天，备份数据库的演练记录。"
BACKUP_EN = "Database backups run every night; a restore drill every quarter; database backups are kept 30 days."


def test_chinese_and_english_key_terms_share_one_vocabulary() -> None:
    zh, en = concepts(TRAVEL_ZH), concepts(TRAVEL_EN)
    assert {"travel", "expense"} <= set(zh) & set(en), (zh, en)
    assert {"backup", "database", "drill"} <= set(concepts(BACKUP_ZH)) & set(concepts(BACKUP_EN))
    # names only ever written capitalised (a company) and file extensions are no subject
    named = concepts("Aurora Analytics pays travel expenses. See travel.docx and the xlsx file.")
    assert "aurora" not in named and "analytic" not in named and not set(named) & FILE_WORDS
    assert "travel" in named


def test_titles_weigh_more() -> None:
    body = "The office has a kitchen; travel is booked online."  # title words count once seen in lower case
    plain = concepts(body, "Travel Rules", title_weight=1)
    heavy = concepts(body, "Travel Rules", title_weight=5)
    assert heavy["travel"] - concepts(body)["travel"] == 5 * (plain["travel"] - concepts(body)["travel"]) > 0


def test_documents_group_by_subject_across_languages() -> None:
    texts = [TRAVEL_ZH, BACKUP_ZH, TRAVEL_ZH + "住宿标准。", TRAVEL_EN, BACKUP_EN, BACKUP_EN + " Drills are logged."]
    languages = ["zh", "zh", "zh", "en", "en", "en"]
    bags = [concepts(t) for t in texts]
    settings = TopicSettings()
    sim = similarity(bags, [None] * len(bags), languages, settings)
    labels = group(sim, settings.neighbours, settings.alone_below)
    assert labels[0] == labels[2] == labels[3] and labels[1] == labels[4] == labels[5], labels
    assert labels[0] != labels[1]


def test_centring_each_language_removes_the_language() -> None:
    rng = np.random.default_rng(7)
    subjects = rng.normal(size=(2, 16))
    zh_offset, en_offset = rng.normal(size=16) * 4, rng.normal(size=16) * 4
    rows = np.array([subjects[s] + off + rng.normal(size=16) * 0.1
                     for off in (zh_offset, en_offset) for s in (0, 1, 0, 1)])
    languages = ["zh"] * 4 + ["en"] * 4
    raw = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    assert raw[0] @ raw[1] > raw[0] @ raw[4]  # before: the language decides
    c = center(rows, languages, min_documents=3)
    assert c[0] @ c[4] > 0.9 and c[0] @ c[1] < 0  # after: the subject does
    small = center(rows, languages, min_documents=5)  # too few per language: centred on the mean of all
    assert np.allclose(np.linalg.norm(small, axis=1), 1.0)


def test_a_document_near_a_second_group_carries_its_topic_too() -> None:
    sim = np.array([
        [1.0, 0.6, 0.1, 0.1, 0.5],
        [0.6, 1.0, 0.0, 0.0, 0.5],
        [0.1, 0.0, 1.0, 0.7, 0.45],
        [0.1, 0.0, 0.7, 1.0, 0.45],
        [0.5, 0.5, 0.45, 0.45, 1.0],
    ])
    placed = place(sim, TopicSettings(neighbours=0, secondary_ratio=0.85))
    assert placed.labels[4] == placed.labels[0] != placed.labels[2]
    own, second = placed.links[4]
    assert own[0] == placed.labels[0] and second[0] == placed.labels[2] and own[1] > second[1]
    assert all(len(links) == 1 for links in placed.links[:4])
    alone = place(np.array([[1.0]]), TopicSettings())
    assert alone.labels == [0] and alone.links == [[(0, 1.0)]]


def test_tf_idf_rows_are_unit_length_and_empty_bags_are_zero() -> None:
    m = concept_matrix([{"travel": 3.0, "hotel": 1.0}, {}, {"travel": 1.0, "password": 2.0}])
    assert np.allclose(np.linalg.norm(m[[0, 2]], axis=1), 1.0) and not m[1].any()


def test_a_concept_of_one_document_alone_does_not_make_it_unlike_the_others() -> None:
    # b and c share "travel" as a and c do; b also holds many words no other document has: they used to
    # take most of its row's length, so b looked far less like c than a does
    plain = {"travel": 2.0, "hotel": 1.0}
    wordy = {"travel": 2.0, "hotel": 1.0, **{f"word{i}": 1.0 for i in range(20)}}
    m = concept_matrix([plain, wordy, {"travel": 2.0, "hotel": 1.0, "password": 1.0}, {"password": 1.0}])
    assert np.isclose(m[0] @ m[2], m[1] @ m[2])
    assert m.shape[1] == 3  # travel, hotel, password: the twenty words of b alone are no column


def test_generic_chinese_words_count_less_than_key_terms() -> None:
    # 工作 ("job") and 报销 ("reimbursement", text/workplace.tsv) each once: the word any text uses weighs less
    bag = concepts("工作。报销。")
    assert 0 < bag["job"] < bag["reimbursement"], bag
    assert np.isclose(bag["job"] / bag["reimbursement"], specificity("工作") / specificity("报销"), atol=0.02)


def test_names_are_never_file_extensions_and_generic_words_rank_low() -> None:
    assert not valid_name("xlsx") and not valid_name("pdf") and valid_name("budget")
    assert specificity("计划") < 0.5 < specificity("差旅费") and specificity("伙食补助") == 1.0
    assert specificity("annual leave") == 1.0


def test_the_graph_s_eigengap_decides_the_groups_and_a_stray_document_stands_alone() -> None:
    # two blocks of three (similar inside, unlike across) and a sixth document unlike every other
    sim = np.full((7, 7), -0.1)
    for block in ((0, 1, 2), (3, 4, 5)):
        for i in block:
            for j in block:
                sim[i, j] = 0.6
    sim[6, 0] = sim[0, 6] = 0.05  # one weak link: spectral clustering puts it somewhere...
    np.fill_diagonal(sim, 1.0)
    assert group(sim, 0) == [0, 0, 0, 1, 1, 1, 2]  # ...but no closer to that group than to the rest: alone
    assert group(sim, 0, alone_below=-0.5) == [0, 0, 0, 1, 1, 1, 0]
    assert group(sim, 2) == [0, 0, 0, 1, 1, 1, 2]  # a sparse graph (two links each) finds the same blocks
    one = np.full((3, 3), 0.5)
    np.fill_diagonal(one, 1.0)
    assert group(one, 0) == [0, 0, 0]  # one subject: one group
    assert group(np.eye(3), 0) == [0, 1, 2]  # nothing alike: each alone
    assert group(np.eye(1), 5) == [0] and group(np.zeros((0, 0)), 5) == []


def test_the_graph_links_each_document_to_its_nearest() -> None:
    sim = np.array([[1.0, 0.9, 0.2, -0.3], [0.9, 1.0, 0.1, 0.4], [0.2, 0.1, 1.0, 0.3], [-0.3, 0.4, 0.3, 1.0]])
    assert np.allclose(affinity(sim, 0), np.clip(sim - np.eye(4), 0, None))  # all positive links
    nearest = affinity(sim, 1)
    # 0 and 1 choose each other, 2 chooses 3, 3 chooses 1 (kept when either end chose it)
    assert (nearest > 0).sum() == 6 and min(nearest[0, 1], nearest[2, 3], nearest[1, 3]) > 0 and nearest[0, 2] == 0


def test_titles_are_the_sections_and_a_file_name_that_is_no_common_words() -> None:
    assert title_text("aurora_handbook.md", ["Leave", "Working hours"]) == "Leave\nWorking hours"
    assert title_text("差旅费报销管理办法.docx", ["总则"], times=2) == "差旅费报销管理办法\n差旅费报销管理办法\n总则"
    # indexing reads the same titles: the document row (its title is the file name, extension and all) is none
    root = NodeRow(uuid.uuid4(), None, "document", 0, "aurora_handbook.md", "", 0, [])
    leave = NodeRow(uuid.uuid4(), root.id, "section", 1, "Leave", "", 1, ["Leave"])
    text = NodeRow(uuid.uuid4(), leave.id, "paragraph", 2, None, "Employees get 25 days.", 2, ["Leave"])
    assert Indexer._title_text([root, leave, text], "aurora_handbook.md") == "Leave"


def test_a_name_is_a_subject_not_the_kind_of_document() -> None:
    assert subject_of("差旅费报销管理办法") == "差旅费报销" and subject_of("信息安全管理办法") == "信息安全"
    assert subject_of("expense claim guide") == "expense claim" and subject_of("security policy") == "security"
    assert subject_of("聊天记录") == "" and subject_of("report") == "" and subject_of("数据备份") == "数据备份"


def test_an_english_name_ends_with_a_noun() -> None:
    ratio = TopicSettings().name_verb_ratio
    assert not noun_headed("employees receive", ratio) and not noun_headed("data applies", ratio)
    assert all(noun_headed(n, ratio) for n in ("annual leave", "expense claims", "support", "on-call", "数据备份"))


def test_a_name_is_held_across_languages_and_what_every_subject_holds_ranks_low() -> None:
    settings = TopicSettings()
    texts = [TRAVEL_ZH, TRAVEL_EN, BACKUP_ZH, BACKUP_EN]
    languages = ["zh", "en", "zh", "en"]
    counts = [{"差旅费": 3, "计划": 2}, {"travel expense": 3, "plan": 2}, {"数据库备份": 3, "计划": 2},
              {"database backups": 3, "plan": 2}]
    holders = Holders(counts, [frozenset(concepts(t + " 计划 plan")) for t in texts], languages)
    assert holders.of("差旅费") == {0, 1} and holders.of("travel expense") == {0, 1}  # either language
    assert holders.of("计划") == {0, 1, 2, 3}  # held by every group: names none of them
    ranked = rank_phrases([0, 1], [0], holders, settings)
    assert ranked[0][0] == "差旅费" and ranked[-1][0] == "计划", ranked
    assert phrase_concepts("接口幂等性") == ()  # a word the dictionaries lack: held literally only
    assert candidate_names([{"信息安全管理办法": 2, "信息安全": 1, "employees receive": 3}], 10.0) == [{"信息安全": 3}]


def test_a_group_of_two_subjects_is_named_by_both() -> None:
    settings = TopicSettings()
    counts = [{"price": 2}, {"price": 2}, {"support": 3}, {"support": 2, "price": 1}, {"backup": 2}]
    holders = Holders(counts, [frozenset()] * 5, ["en"] * 5)
    assert pair_name(["support", "price"], {0, 1, 2, 3}, [0, 1, 2, 3], holders, "en", settings) == "support and price"
    assert pair_name(["support", "price"], {2, 3}, [2, 3], holders, "en", settings) == "support"  # held by both
    assert pair_name(["备份", "演练"], {4}, [4], Holders([{}] * 4 + [{"备份": 1}], [frozenset()] * 5, ["zh"] * 5), "zh",
                     settings) == "备份"


def test_an_english_word_also_counts_as_what_a_chinese_bag_holds_for_it() -> None:
    # the dictionary glosses 收入 "income" and 客户 "client", where English reports say revenue and customer
    assert ("income",) in english_glosses("revenue", 2) and ("client",) in english_glosses("customer", 2)
    assert ("customer",) not in english_glosses("customer", 2)  # the word itself is no other way
    zh = concepts("收入增长，客户增加。")
    alone = concepts("Our revenue grew and customers were added.")
    shared = concepts("Our revenue grew and customers were added.", english_gloss_share=0.5)
    assert not {"income", "client"} & set(alone) and {"income", "client"} <= set(zh) & set(shared)
    assert shared["revenue"] == shared["income"] == 0.5 * alone["revenue"]  # one count, shared
    # backup → 备份 → backup: the word itself only, so it keeps its whole count
    assert concepts("backup", english_gloss_share=0.5, english_translations=1) == {"backup": 1.0}
