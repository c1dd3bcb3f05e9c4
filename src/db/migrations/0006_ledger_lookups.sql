-- The operator's view of a collection lists its postings through journals.collection_id (the credit
-- and its later releases); journals_one_credit covers credits only, so the releases need this index.
CREATE INDEX journals_collection ON journals (collection_id);
