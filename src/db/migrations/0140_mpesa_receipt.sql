-- M-Pesa refunds name the payment by its receipt (docs/contract/processors.md, "M-Pesa's receipt").

-- The processor's receipt of a collection's payment as its callback gave it (M-Pesa's MpesaReceiptNumber:
-- STK Push Query does not give one). A callback is a prompt, never proof: the receipt is taken from
-- the callbacks that come before the completion is confirmed (the last one counts), afterwards only
-- while none is known, and a refund confirms it with the processor before using it.
ALTER TABLE processor_requests ADD COLUMN receipt TEXT;

-- A refund whose processor confirms the original payment before sending it (M-Pesa: the Transaction
-- Status query of the receipt, answered on the refund's callback URL): the ids of the queries made (an
-- answer counts only when it names one of them; asked again while none answers, so a slow answer to an
-- earlier query still counts), and when an answer matched the collection. The refund is sent only then.
ALTER TABLE refunds ADD COLUMN original_query_references TEXT[] NOT NULL DEFAULT '{}';
ALTER TABLE refunds ADD COLUMN original_confirmed_at TIMESTAMPTZ;
